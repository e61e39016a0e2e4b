/**
 * The set-password pages' strength meter: a small script (served at `P/password-meter.js`, the
 * pages' CSP allowing scripts from here only) that asks the server's own check
 * (`P/password-strength`, with the page's link and form nonce) as the user types, and shows the
 * score in a `<meter>` and in words. The page works without it: the server checks on submit.
 * Its words come from the page (data attributes), so the catalogue stays in messages.ts.
 *
 * @example
 *   reply.type('text/javascript').send(PASSWORD_METER_JS);
 */
export const PASSWORD_METER_JS = `(() => {
  const box = document.getElementById('password-meter');
  const form = document.getElementById('set-password');
  const input = document.getElementById('pass1');
  if (!box || !form || !input) return;
  const words = JSON.parse(box.dataset.words || '[]');
  const meter = document.createElement('meter');
  meter.min = 0; meter.max = 4; meter.low = 2; meter.high = 3; meter.optimum = 4; meter.value = 0;
  meter.id = 'password-meter-bar';
  meter.setAttribute('aria-labelledby', 'password-meter-label');
  const label = document.createElement('p');
  label.id = 'password-meter-label';
  label.className = 'hint';
  label.textContent = box.dataset.empty || '';
  box.append(meter, label);
  let timer;
  let asked = 0;
  input.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(async () => {
      const n = ++asked;
      const body = new URLSearchParams({ _wpnonce: form.elements._wpnonce.value, token: form.elements.token.value, password: input.value });
      try {
        const res = await fetch(box.dataset.action, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body, credentials: 'same-origin' });
        if (!res.ok || n !== asked) return;
        const r = await res.json();
        meter.value = r.score;
        label.textContent = (words[r.score] || '') + (r.ok ? '' : ' — ' + (r.message || ''));
      } catch { /* the server checks on submit anyway */ }
    }, 250);
  });
})();
`;
