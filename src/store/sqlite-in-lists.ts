/**
 * SQLite's dialect with `IN` lists compiled to a few lengths only. Kysely writes
 * `column IN (?, ?, …)` with one placeholder per value, so a look-up of 137 ids and one of 138 are
 * two statements; the connection keeps its 500 most recent prepared statements (db.ts), and
 * requests whose lists vary in length (a CalDAV sync of the events changed since a token, the
 * organizers and terms of a page of events, versions by the chunk) filled it with hundreds of large
 * statements, each a program of its own in SQLite's memory, and the rest churned: under the mixed
 * benchmark the process' malloc heap grew by 50-100 MB (bench/RESULTS.md).
 *
 * A list longer than EXACT_MAX values is padded to the next of a few lengths (about 1.5× apart)
 * by repeating its last value, which changes nothing an `IN` or `NOT IN` matches; a query shape
 * then has at most a dozen statements. Only the operands of `in` and `not in` are padded (never an
 * insert's rows). PostgreSQL prepares no statement per text here: its dialect is unchanged.
 *
 * @example new StoreDb({ dialect: new SqliteInListDialect({ database }) }) // `in (?, …)` of 137 ids → 192 placeholders
 */
import { BinaryOperationNode, PrimitiveValueListNode, SqliteDialect, SqliteQueryCompiler, type Driver, type QueryCompiler, type SqliteDialectConfig } from 'kysely';
import { LockWaitingSqliteDriver, type LockWait } from './sqlite-waits.js';

/** Lists up to this long are written as they are (a page of events, a few terms). */
export const EXACT_MAX = 16;

/** The lengths a longer list is padded to: 24, 32, 48, 64, 96, 128, … (each 1.5× or 4/3× the one before). */
export function paddedLength(length: number): number {
  if (length <= EXACT_MAX) return length;
  let size = EXACT_MAX;
  while (size < length) size = size % 3 === 0 ? (size / 3) * 4 : (size / 2) * 3;
  return size;
}

class InListCompiler extends SqliteQueryCompiler {
  protected override visitBinaryOperation(node: BinaryOperationNode): void {
    const right = node.rightOperand;
    const operator = (node.operator as { operator?: string }).operator;
    if (PrimitiveValueListNode.is(right) && (operator === 'in' || operator === 'not in') && right.values.length > EXACT_MAX) {
      const values = right.values;
      const padded = values.concat(new Array<unknown>(paddedLength(values.length) - values.length).fill(values[values.length - 1]));
      super.visitBinaryOperation(BinaryOperationNode.create(node.leftOperand, node.operator, PrimitiveValueListNode.create(padded)));
      return;
    }
    super.visitBinaryOperation(node);
  }
}

export class SqliteInListDialect extends SqliteDialect {
  private readonly config: SqliteDialectConfig;
  private readonly wait: LockWait | undefined;

  /** `wait`: a statement that finds another connection's write lock waits off the event loop (sqlite-waits.ts). */
  constructor(config: SqliteDialectConfig, wait?: LockWait) {
    super(config);
    this.config = config;
    this.wait = wait;
  }

  override createDriver(): Driver {
    return this.wait ? new LockWaitingSqliteDriver(this.config, this.wait) : super.createDriver();
  }

  override createQueryCompiler(): QueryCompiler {
    return new InListCompiler();
  }
}
