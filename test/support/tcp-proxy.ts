/**
 * A TCP proxy the tests control, to play a database outage without touching the real server
 * (shared with other test runs): `down('refuse')` drops every open connection and refuses new
 * ones (as a stopped PostgreSQL does), `down('blackhole')` drops them and then accepts new ones
 * without ever answering (an unreachable host), `up()` forwards again, on the same port.
 *
 * @example
 *   const proxy = await startProxy('127.0.0.1', 5432);
 *   const url = `postgres://postgres@127.0.0.1:${proxy.port}/test`;
 *   await proxy.down('refuse'); …; await proxy.up();
 *   await proxy.close();
 */
import net from 'node:net';

export interface TcpProxy {
  port: number;
  down(mode: 'refuse' | 'blackhole'): Promise<void>;
  up(): Promise<void>;
  /** Connections accepted so far. */
  accepted(): number;
  close(): Promise<void>;
}

export async function startProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  /** Connections accepted while blackholed, dropped when the proxy comes back up. */
  const held = new Set<net.Socket>();
  let mode: 'up' | 'refuse' | 'blackhole' = 'up';
  let accepted = 0;
  const track = (s: net.Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => {});
  };
  const server = net.createServer((client) => {
    accepted++;
    track(client);
    if (mode === 'blackhole') return void held.add(client); // accepted, never answered
    if (mode === 'refuse') return void client.destroy();
    const upstream = net.connect(targetPort, targetHost);
    track(upstream);
    client.pipe(upstream);
    upstream.pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  await listen(0);
  const port = (server.address() as net.AddressInfo).port;
  const dropAll = () => {
    for (const s of sockets) s.destroy();
    sockets.clear();
  };
  const stopListening = () => new Promise<void>((resolve) => (server.listening ? server.close(() => resolve()) : resolve()));
  return {
    port,
    accepted: () => accepted,
    async down(m) {
      mode = m;
      if (m === 'refuse') {
        const closed = stopListening();
        dropAll();
        await closed;
      } else {
        dropAll();
      }
    },
    async up() {
      mode = 'up';
      for (const s of held) s.destroy();
      held.clear();
      if (!server.listening) await listen(port);
    },
    async close() {
      mode = 'refuse';
      const closed = stopListening();
      dropAll();
      await closed;
    },
  };
}
