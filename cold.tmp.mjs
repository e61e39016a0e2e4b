const base = process.argv[2];
const auth = 'Basic ' + Buffer.from('admin:pw').toString('base64');
const ymd = (d) => d.toISOString().slice(0, 10);
const now = new Date(); const in90 = new Date(Date.now() + 90 * 864e5);
const get = async (p) => { const t = performance.now(); const r = await fetch(base + p); const b = await r.text(); return [performance.now() - t, r.status, b.length]; };
const filtered = `/events?categories=music&start_date=${ymd(now)}&end_date=${ymd(in90)}&search=jazz`;
const paths = { list: '/events', filtered, page100: '/events?page=100' };
const cats = await (await fetch(base + '/categories?search=music')).json();
const music = cats.categories.find((c) => c.slug === 'music');
for (const [k, p] of Object.entries(paths)) { const r = await get(p); console.log('first', k, r.map((x) => typeof x === 'number' ? Math.round(x * 10) / 10 : x)); }
for (const [k, p] of Object.entries(paths)) { const r = await get(p); console.log('warm', k, r.map((x) => Math.round(x * 10) / 10)); }
const times = { list: [], filtered: [], page100: [] , create: []};
for (let i = 0; i < 20; i++) {
  const day = new Date(Date.now() + (5 + Math.floor(Math.random() * 80)) * 864e5);
  const t = performance.now();
  const r = await fetch(base + '/events', { method: 'POST', headers: { authorization: auth, 'content-type': 'application/json' }, body: JSON.stringify({ title: 'Cold jazz ' + i, start_date: ymd(day) + ' 20:00', end_date: ymd(day) + ' 22:00', categories: [music.id] }) });
  times.create.push(performance.now() - t);
  if (r.status !== 201) throw new Error(await r.text());
  for (const [k, p] of Object.entries(paths)) times[k].push((await get(p))[0]);
}
const med = (xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
for (const [k, xs] of Object.entries(times)) console.log('after write', k, 'median', med(xs).toFixed(1), 'max', Math.max(...xs).toFixed(1));
