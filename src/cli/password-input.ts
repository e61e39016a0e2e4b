/**
 * Reading a password for a CLI command without putting it on the command line (where `ps` and
 * the shell history show it): `--password-stdin` reads it from standard input (one trailing
 * newline dropped), and on a terminal without `--password` a hidden prompt asks for it twice.
 * `--password VALUE` keeps working.
 *
 * @example
 *   printf '%s\n' "$PW" | events-calendar users add ann --role editor --password-stdin
 */
import { UserError } from '../domain/users.js';

export interface PasswordOptions {
  password?: string;
  passwordStdin?: boolean;
}

/** Everything on standard input, as text. */
async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

/** Ask on the terminal (prompt on stderr), echoing nothing. */
export function promptHidden(prompt: string): Promise<string> {
  const stdin = process.stdin;
  return new Promise((resolve, reject) => {
    process.stderr.write(prompt);
    let value = '';
    const wasRaw = stdin.isRaw;
    stdin.setRawMode(true);
    stdin.resume();
    stdin.setEncoding('utf8');
    const done = (err?: Error) => {
      stdin.setRawMode(wasRaw);
      stdin.pause();
      stdin.removeListener('data', onData);
      process.stderr.write('\n');
      if (err) reject(err);
      else resolve(value);
    };
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ch === '\r' || ch === '\n') return done();
        if (ch === '\u0003') return done(new UserError('interrupted'));
        if (ch === '\u0004') return value ? done() : done(new UserError('no password given'));
        if (ch === '\u007f' || ch === '\b') value = value.slice(0, -1);
        else if (ch === '\u0015') value = '';
        else if (ch >= ' ') value += ch;
      }
    };
    stdin.on('data', onData);
  });
}

/**
 * The password of a command: `--password`, `--password-stdin`, or a hidden prompt (twice, when
 * `confirm`) on a terminal.
 */
export async function passwordFrom(opts: PasswordOptions, { confirm = true } = {}): Promise<string> {
  if (opts.password !== undefined && opts.passwordStdin) throw new UserError('give either --password or --password-stdin, not both');
  if (opts.password !== undefined) return opts.password;
  if (opts.passwordStdin) {
    const text = await readStdin();
    return text.replace(/\r?\n$/, '');
  }
  if (!process.stdin.isTTY) throw new UserError('no password: give it with --password-stdin (or run the command on a terminal to be asked)');
  const first = await promptHidden('Password: ');
  if (confirm && (await promptHidden('Password again: ')) !== first) throw new UserError('the passwords differ');
  return first;
}
