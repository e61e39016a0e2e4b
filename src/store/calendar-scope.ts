/**
 * Which calendar a statement belongs to, and the one place that makes every statement on calendar
 * data keep to it. Every row of calendar data carries its calendar's id (`calendar_id`, migration
 * 031); the work at hand runs in one calendar (`inCalendar`), and the Kysely plugin installed on
 * every store handle (`CALENDAR_SCOPE`) adds `calendar_id = ?` to each table of calendar data a
 * query reads, updates or deletes (in its FROM, its joins and its subqueries) and sets it on each row
 * it inserts. Work outside any calendar (a job, a CLI command, a start) is the default calendar's
 * (id 1), so a single-calendar installation runs as it always did.
 *
 * Statements written as text (the SQLite direct path, `sql` templates) name `calendar_id`
 * themselves; the suite checks every statement it issues (test/store/calendar-statements.test.ts).
 * The few readers that work across calendars (the change log's tail, the network's own tables)
 * say so with `acrossCalendars`.
 *
 * @example
 *   await inCalendar(7, () => services.events.list(query)); // only calendar 7's events
 */
import { sql, type ExpressionBuilder, type RawBuilder } from 'kysely';
import {
  AliasNode,
  BinaryOperationNode,
  ColumnNode,
  IdentifierNode,
  JoinNode,
  OperationNodeTransformer,
  OperatorNode,
  PrimitiveValueListNode,
  RawNode,
  QueryNode,
  ReferenceNode,
  TableNode,
  ValueListNode,
  ValueNode,
  ValuesNode,
  type DeleteQueryNode,
  type InsertQueryNode,
  type KyselyPlugin,
  type OperationNode,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryResult,
  type RootOperationNode,
  type SelectQueryNode,
  type UnknownRow,
  type UpdateQueryNode,
} from 'kysely';
import { DEFAULT_CALENDAR_ID, calendarIdNow, isAcrossCalendars, inCalendar, acrossCalendars } from '../calendar-now.js';

export { DEFAULT_CALENDAR_ID, calendarIdNow, isAcrossCalendars, inCalendar, acrossCalendars };

/** The tables whose rows belong to one calendar: each has `calendar_id`, and every statement on it filters by it. */
export const CALENDAR_TABLES: ReadonlySet<string> = new Set([
  'posts',
  'events',
  'venues',
  'organizers',
  'event_organizers',
  'terms',
  'event_terms',
  'images',
  'event_locations',
  'event_occurrences',
  'event_series',
  'occurrence_moves',
  'changes',
  'changes_pruned',
  'edit_locks',
  'import_map',
  'imports',
  'submissions',
  'submission_log',
  'submission_quota',
  'calendar_settings',
  'preview_revocations',
  'webhook_endpoints',
  'webhook_deliveries',
  'webhook_attempts',
  'federation_kv',
  'federation_keys',
  'federation_followers',
  'federation_state',
  'federation_objects',
  'federation_activities',
  'federation_deliveries',
  'federation_received',
  'federation_queue',
  'calendar_follows',
  'network_sources',
  'network_linked',
  'calendar_former_slugs',
]);

/** The calendar's column on `table` (its alias when it has one), as a reference. */
function calendarColumn(table: string): ReferenceNode {
  return ReferenceNode.create(ColumnNode.create('calendar_id'), TableNode.create(table));
}

function sameCalendar(table: string, id: number): OperationNode {
  return BinaryOperationNode.create(calendarColumn(table), OperatorNode.create('='), ValueNode.create(id));
}

/** The name a FROM or JOIN item is referred by, when it is a table of calendar data. */
function scopedName(node: OperationNode | undefined): string | undefined {
  if (!node) return undefined;
  if (TableNode.is(node)) {
    const name = node.table.identifier.name;
    return CALENDAR_TABLES.has(name) ? name : undefined;
  }
  if (AliasNode.is(node) && TableNode.is(node.node)) {
    const name = node.node.table.identifier.name;
    if (!CALENDAR_TABLES.has(name)) return undefined;
    if (IdentifierNode.is(node.alias)) return node.alias.name;
    // An alias written as text (`"events" indexed by "…"`, SQLite's index hints) names the table itself.
    const text = RawNode.is(node.alias) ? node.alias.sqlFragments.join('') : '';
    if (text.startsWith(`"${name}"`)) return name;
    throw new Error(`a table of calendar data under an alias the calendar scope cannot read: ${name}`);
  }
  // A table written as text (`sql\`"events"\`.as(sql\`"events" indexed by …\`)`): its quoted name alone.
  if (AliasNode.is(node) && RawNode.is(node.node)) {
    const text = node.node.sqlFragments.join('').trim();
    const m = /^"([a-z_]+)"$/.exec(text);
    if (m && CALENDAR_TABLES.has(m[1]!)) return m[1]!;
  }
  return undefined;
}

class ScopeTransformer extends OperationNodeTransformer {
  private readonly id: number;

  constructor(id: number) {
    super();
    this.id = id;
  }

  private scopeJoins(joins: ReadonlyArray<JoinNode> | undefined): ReadonlyArray<JoinNode> | undefined {
    if (!joins) return joins;
    return joins.map((join) => {
      const name = scopedName(join.table);
      return name ? JoinNode.cloneWithOn(join, sameCalendar(name, this.id)) : join;
    });
  }

  private scopeFroms<T extends SelectQueryNode | UpdateQueryNode | DeleteQueryNode>(node: T, froms: ReadonlyArray<OperationNode>): T {
    let out = node;
    for (const from of froms) {
      const name = scopedName(from);
      if (name) out = QueryNode.cloneWithWhere(out, sameCalendar(name, this.id));
    }
    return out;
  }

  protected override transformSelectQuery(node: SelectQueryNode, queryId?: Parameters<OperationNodeTransformer['transformNode']>[1]): SelectQueryNode {
    const inner = super.transformSelectQuery(node, queryId);
    const joined = { ...inner, joins: this.scopeJoins(inner.joins) } as SelectQueryNode;
    return this.scopeFroms(joined, inner.from?.froms ?? []);
  }

  protected override transformUpdateQuery(node: UpdateQueryNode, queryId?: Parameters<OperationNodeTransformer['transformNode']>[1]): UpdateQueryNode {
    const inner = super.transformUpdateQuery(node, queryId);
    const joined = { ...inner, joins: this.scopeJoins(inner.joins) } as UpdateQueryNode;
    return this.scopeFroms(joined, [...(inner.table ? [inner.table] : []), ...(inner.from?.froms ?? [])]);
  }

  protected override transformDeleteQuery(node: DeleteQueryNode, queryId?: Parameters<OperationNodeTransformer['transformNode']>[1]): DeleteQueryNode {
    const inner = super.transformDeleteQuery(node, queryId);
    const joined = { ...inner, joins: this.scopeJoins(inner.joins) } as DeleteQueryNode;
    return this.scopeFroms(joined, [...inner.from.froms, ...(inner.using?.tables ?? [])]);
  }

  protected override transformInsertQuery(node: InsertQueryNode, queryId?: Parameters<OperationNodeTransformer['transformNode']>[1]): InsertQueryNode {
    const inner = super.transformInsertQuery(node, queryId);
    const table = inner.into?.table.identifier.name;
    if (!table || !CALENDAR_TABLES.has(table) || !inner.columns || !inner.values) return inner;
    if (inner.columns.some((c) => c.column.name === 'calendar_id')) return inner;
    if (!ValuesNode.is(inner.values)) throw new Error(`an insert into ${table} from a query must set calendar_id itself`);
    const id = this.id;
    const values = ValuesNode.create(
      inner.values.values.map((row) =>
        PrimitiveValueListNode.is(row) ? PrimitiveValueListNode.create([...row.values, id]) : ValueListNode.create([...(row as ValueListNode).values, ValueNode.create(id)]),
      ),
    );
    return { ...inner, columns: [...inner.columns, ColumnNode.create('calendar_id')], values };
  }
}

/**
 * The plugin every store handle carries (db.ts): each query keeps to the calendar of the work at
 * hand. Queries of tables outside calendar data (users, sessions, the network's tables) pass as
 * they are, and so does everything run `acrossCalendars`.
 */
class CalendarScopePlugin implements KyselyPlugin {
  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    if (isAcrossCalendars()) return args.node;
    return new ScopeTransformer(calendarIdNow()).transformNode(args.node, args.queryId);
  }

  transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return Promise.resolve(args.result);
  }
}

export const CALENDAR_SCOPE: KyselyPlugin = new CalendarScopePlugin();

/**
 * For statements written as text: `and "table"."calendar_id" = ?` keeping them to the calendar of
 * the work at hand (nothing while working across calendars), its text and its value.
 */
export function calendarCondition(table: string): { text: string; params: number[] } {
  if (isAcrossCalendars()) return { text: '', params: [] };
  return { text: ` and "${table}"."calendar_id" = ?`, params: [calendarIdNow()] };
}

/**
 * Rows named by their key, calendar and id (what a claim across calendars took): a condition for a
 * `where`, on the table's columns or an alias's (`d.`).
 */
export function byCalendarAndId(keys: ReadonlyArray<readonly [calendar: number, id: number | string]>, alias = '') {
  const prefix = alias === '' ? '' : `${alias}.`;
  return (eb: ExpressionBuilder<any, any>) => eb.or(keys.map(([calendar, id]) => eb.and([eb(`${prefix}calendar_id`, '=', calendar), eb(`${prefix}id`, '=', id)])));
}

/** `calendarCondition` as a fragment of a `sql` template. */
export function calendarFilter(table: string): RawBuilder<unknown> {
  if (isAcrossCalendars()) return sql``;
  return sql` and ${sql.ref(`${table}.calendar_id`)} = ${calendarIdNow()}`;
}
