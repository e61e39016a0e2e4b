import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { formatCost, parseCostInput, type CostDetails } from '../../src/domain/cost.js';

const NO_COST: CostDetails = { currency_symbol: '', currency_code: '', currency_position: '', values: [] };

/** What the REST API returns for a `cost` input: parse, store, render. */
function render(input: unknown): { cost: string; cost_details: CostDetails } {
  const parsed = parseCostInput(input);
  return parsed ? formatCost(parsed.raw, parsed.symbol, parsed.position) : formatCost([], '', '');
}

function details(values: string[], symbol = '', position: CostDetails['currency_position'] = ''): CostDetails {
  return { currency_symbol: symbol, currency_code: '', currency_position: position, values };
}

describe('parseCostInput', () => {
  it('returns null for empty / falsy input', () => {
    for (const input of [undefined, null, '', 0, '0', [], false, '   ', ['']]) {
      assert.equal(parseCostInput(input), null, JSON.stringify(input));
    }
  });

  it('infers symbol and position like Tribe__Cost_Utils', () => {
    assert.deepEqual(parseCostInput(25), { raw: ['25'], symbol: '', position: '' });
    assert.deepEqual(parseCostInput('$10 - $20'), { raw: ['$10 - $20'], symbol: '', position: '' });
    assert.deepEqual(parseCostInput('€15.50'), { raw: ['€15.50'], symbol: '€', position: 'prefix' });
    assert.deepEqual(parseCostInput('USD 20'), { raw: ['USD 20'], symbol: 'USD', position: 'prefix' });
    assert.deepEqual(parseCostInput('20$'), { raw: ['20$'], symbol: '$', position: 'postfix' });
    assert.deepEqual(parseCostInput(['0$', '20$', '30$']), { raw: ['0$', '20$', '30$'], symbol: '$', position: 'postfix' });
    assert.deepEqual(parseCostInput('Free'), { raw: ['Free'], symbol: '', position: '' });
  });

  it('matches the reference currency-symbol cases', () => {
    const symbol = (input: unknown): string => parseCostInput(input)?.symbol ?? '';
    assert.equal(symbol('foo bar'), '');
    assert.equal(symbol('$ 2'), '$');
    assert.equal(symbol('2 $'), '$');
    assert.equal(symbol('free, 20$, 30$'), '$');
    assert.equal(symbol(['free', '20$', '30$']), '$');
    assert.equal(symbol(['free', '20¥', '30$']), '');
    assert.equal(symbol(['20¥', '30$']), '');
    assert.equal(symbol(['free', '20¥']), '¥');
  });

  it('matches the reference currency-position cases', () => {
    const position = (input: unknown): string => parseCostInput(input)?.position ?? '';
    assert.equal(position('$2'), 'prefix');
    assert.equal(position('2 $'), 'postfix');
    assert.equal(position(['free', '20¥']), 'postfix');
    assert.equal(position(['$20', '30$']), '');
    assert.equal(position(['$ 20', '$30']), 'prefix');
    assert.equal(position(['20$', '30 $']), 'postfix');
  });

  it('strips tags from a single string', () => {
    assert.deepEqual(parseCostInput('<b>$5</b>')?.raw, ['$5']);
  });
});

describe('formatCost (reference table)', () => {
  it('absent / null', () => {
    assert.deepEqual(render(undefined), { cost: '', cost_details: NO_COST });
    assert.deepEqual(render(null), { cost: '', cost_details: NO_COST });
  });

  it('25 and "25"', () => {
    assert.deepEqual(render(25), { cost: '$25', cost_details: details(['25']) });
    assert.deepEqual(render('25'), { cost: '$25', cost_details: details(['25']) });
  });

  it('10.5', () => {
    assert.deepEqual(render(10.5), { cost: '$10.5', cost_details: details(['10.5']) });
  });

  it('"$10 - $20"', () => {
    assert.deepEqual(render('$10 - $20'), { cost: '$10 \u2013 $20', cost_details: details(['10', '20']) });
  });

  it('"€15.50"', () => {
    assert.deepEqual(render('€15.50'), { cost: '€15.50', cost_details: details(['15.50'], '€', 'prefix') });
  });

  it('"USD 20"', () => {
    assert.deepEqual(render('USD 20'), { cost: 'USD20', cost_details: details(['20'], 'USD', 'prefix') });
  });

  it('"Free"', () => {
    assert.deepEqual(render('Free'), { cost: 'Free', cost_details: details(['free']) });
  });

  it('0 and "0"', () => {
    assert.deepEqual(render(0), { cost: '', cost_details: NO_COST });
    assert.deepEqual(render('0'), { cost: '', cost_details: NO_COST });
  });

  it('"20$"', () => {
    assert.deepEqual(render('20$'), { cost: '20$', cost_details: details(['20'], '$', 'postfix') });
  });

  it('["0$","20$","30$"]', () => {
    assert.deepEqual(render(['0$', '20$', '30$']), {
      cost: 'Free \u2013 30$',
      cost_details: details(['0', '20', '30'], '$', 'postfix'),
    });
  });
});

describe('formatCost (rules)', () => {
  it('normalises thousands separators in values', () => {
    assert.deepEqual(render('1,000'), { cost: '$1,000', cost_details: details(['1000']) });
  });

  it('sorts values numerically and prints min – max', () => {
    assert.deepEqual(render(['30', '5', '12.5']), { cost: '$5 \u2013 $30', cost_details: details(['5', '12.5', '30']) });
    assert.deepEqual(render(['10.5', '20']).cost, '$10.5 \u2013 $20');
  });

  it('prints a single value alone and collapses duplicates', () => {
    assert.deepEqual(formatCost(['$10 - $10'], '', ''), { cost: '$10', cost_details: details(['10']) });
  });

  it('reproduces TEC inferring an odd symbol from a repeated number', () => {
    // Tribe__Cost_Utils::parse_currency_symbol() str_replace()s every "10" away, leaving "$ - $".
    assert.deepEqual(parseCostInput('$10 - $10'), { raw: ['$10 - $10'], symbol: '$ - $', position: '' });
  });

  it('uses the default symbol only when none is stored', () => {
    assert.equal(formatCost(['15'], '', '', { symbol: '£', position: 'prefix' }).cost, '£15');
    assert.equal(formatCost(['15'], '€', 'postfix', { symbol: '£', position: 'prefix' }).cost, '15€');
    assert.equal(formatCost(['15'], '', 'postfix').cost, '15$');
  });

  it("puts the site's symbol on the site's side only when the event stored no side (reverseCurrencyPosition)", () => {
    assert.equal(formatCost(['15'], '', '', { symbol: '€', position: 'suffix' }).cost, '15€');
    assert.equal(formatCost(['10', '20'], '', '', { symbol: 'kr', position: 'suffix' }).cost, '10kr \u2013 20kr');
    assert.equal(formatCost(['15'], '$', 'prefix', { symbol: '€', position: 'suffix' }).cost, '$15');
    assert.equal(formatCost(['Free'], '', '', { symbol: '€', position: 'suffix' }).cost, 'Free');
  });

  it('renders a lone 0 inside an array as Free', () => {
    assert.deepEqual(render(['0']), { cost: 'Free', cost_details: details(['0']) });
  });

  it('escapes HTML in the rendered cost', () => {
    assert.equal(formatCost(['Pay & go'], '', '').cost, 'Pay &amp; go');
  });

  it('returns the stored symbol/position even without values', () => {
    assert.deepEqual(formatCost([], '€', 'prefix'), { cost: '', cost_details: details([], '€', 'prefix') });
  });
});
