const { loadConfig } = await import('/work/main/src/config.ts');
const { buildApp } = await import('/work/main/src/http/app.ts');
const { rmSync } = await import('node:fs');
rmSync('/tmp/prof-create.db', { force: true });
const config = loadConfig({ DATABASE_URL: 'sqlite:/tmp/prof-create.db', CALENDAR_ADMIN_USER: 'admin', CALENDAR_ADMIN_PASSWORD: 'pw', LOG_LEVEL: 'silent' });
const built = await buildApp(config, { logger: false });
const auth = 'Basic ' + Buffer.from('admin:pw').toString('base64');
const mk = async (path: string, body: unknown) => (await built.app.inject({ method: 'POST', url: '/api/calendar/events/v1' + path, headers: { authorization: auth, 'content-type': 'application/json' }, payload: JSON.stringify(body) })).json();
const v = await mk('/venues', { venue: 'V' }); const o = await mk('/organizers', { organizer: 'O' }); const c = await mk('/categories', { name: 'music' }); const tg = await mk('/tags', { name: 't' });
const N = Number(process.env.N ?? 3000);
const t0 = performance.now();
for (let i = 0; i < N; i++) {
  await mk('/events', { title: 'Benchmark concert ' + i, description: 'An evening of <strong>live jazz</strong>.\n\nDoors at 19:00.', start_date: '2027-03-02 20:00', end_date: '2027-03-02 22:00', venue: v.id, organizer: [o.id], categories: [c.id], tags: [tg.id], cost: '15' });
}
const ms = performance.now() - t0;
console.log(`${N} creates in ${ms.toFixed(0)} ms: ${(N / ms * 1000).toFixed(0)}/s, ${(ms / N).toFixed(3)} ms each`);
await built.close();
