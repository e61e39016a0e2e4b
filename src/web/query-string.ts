/**
 * Query strings and form bodies, for every face: at most {@link MAX_PARAMETERS} parameters (PHP's
 * default `max_input_vars`, which WordPress runs under) nested at most {@link MAX_PARAMETER_DEPTH}
 * levels (`a[b][c][d][e][f]`). More is refused (400 `rest_too_many_params` / `rest_params_too_deep`)
 * before qs parses anything, instead of being cut silently: parsing is then bounded (a few
 * milliseconds at 1000 parameters, nested or not). An index beyond `arrayLimit` (`a[500]=x`) makes an
 * object of the array, as qs does; list arguments count its keys (route.ts' maxItems).
 *
 * @example
 *   Fastify({ routerOptions: { querystringParser: parseQuery } }); registerQueryRefusal(app);
 */
import type { FastifyInstance } from 'fastify';
import qs from 'qs';
import { ApiError } from '../domain/errors.js';

export const MAX_PARAMETERS = 1000;
export const MAX_PARAMETER_DEPTH = 5;
const QS_OPTIONS = { depth: MAX_PARAMETER_DEPTH, strictDepth: true, arrayLimit: 200, parameterLimit: MAX_PARAMETERS, allowDots: false } as const;

/** Set on the result of a query string that was refused: the answer (an onRequest hook throws it). */
const REFUSED_QUERY = Symbol('refused query');

/** The error of a query string or form body over the limits, or undefined. */
function paramsRefusal(str: string): ApiError | undefined {
  let params = 1;
  for (let i = str.indexOf('&'); i !== -1; i = str.indexOf('&', i + 1)) {
    if (++params > MAX_PARAMETERS) return new ApiError('rest_too_many_params', `The request has more than ${MAX_PARAMETERS} parameters.`, 400);
  }
  return undefined;
}

/** `name=value&…` with nothing qs would decode, nest or combine (no `%`, `+`, brackets or dots in names). */
const SIMPLE_QUERY = /^[A-Za-z0-9_-]+=[A-Za-z0-9_.,:-]*(?:&[A-Za-z0-9_-]+=[A-Za-z0-9_.,:-]*){0,31}$/;

/**
 * The hot reads' query strings (`per_page=10&page=2`), parsed without qs: the same object qs makes
 * when every name is plain and appears once; undefined otherwise (qs then parses it).
 */
function simpleQuery(str: string): Record<string, unknown> | undefined {
  if (!SIMPLE_QUERY.test(str)) return undefined;
  const out: Record<string, unknown> = {};
  let start = 0;
  while (start < str.length) {
    let end = str.indexOf('&', start);
    if (end === -1) end = str.length;
    const eq = str.indexOf('=', start);
    const name = str.slice(start, eq);
    // A repeated name makes a list in qs, and qs drops names of Object.prototype (`constructor`).
    if (Object.prototype.hasOwnProperty.call(out, name) || name in Object.prototype) return undefined;
    out[name] = str.slice(eq + 1, end);
    start = end + 1;
  }
  return out;
}

/** Parse a query string or form body; over the limits, an empty object carrying the refusal. */
export function parseQuery(str: string): Record<string, unknown> {
  if (str === '') return {};
  const simple = simpleQuery(str);
  if (simple !== undefined) return simple;
  let refusal = paramsRefusal(str);
  if (refusal === undefined) {
    try {
      return qs.parse(str, QS_OPTIONS) as Record<string, unknown>;
    } catch (err) {
      if (!(err instanceof RangeError)) throw err;
      refusal = new ApiError('rest_params_too_deep', `A parameter is nested deeper than ${MAX_PARAMETER_DEPTH} levels (a[b][c][d][e][f]).`, 400);
    }
  }
  const refused: Record<string, unknown> = {};
  Object.defineProperty(refused, REFUSED_QUERY, { value: refusal, enumerable: false });
  return refused;
}

/** The refusal a parsed query or form body carries, if any. */
export function refusalOf(parsed: unknown): ApiError | undefined {
  return parsed !== null && typeof parsed === 'object' ? ((parsed as Record<symbol, ApiError | undefined>)[REFUSED_QUERY] ?? undefined) : undefined;
}

/** A query string over the limits (parseQuery) is answered before anything reads it. */
export function registerQueryRefusal(app: FastifyInstance): void {
  app.addHook('onRequest', (req, _reply, done) => {
    const refusal = refusalOf(req.query);
    done(refusal);
  });
}
