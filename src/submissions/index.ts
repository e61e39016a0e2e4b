/**
 * The submissions face: the public's form and the submitter's private status page,
 * server-rendered, in English or French from `Accept-Language`, working without JavaScript (a
 * small script only solves the proof of work when SUBMISSIONS_POW=on):
 *
 * - `GET /events/submit/` the form; `POST /events/submit/` sends it (303 to the status page);
 * - `GET /events/submit/status/{token}` the status, the moderator's reason, the edit form while
 *   pending or when changes were asked for; `POST` with `_action=edit` or `_action=withdraw`;
 * - `GET /events/submit/challenge` (the ALTCHA challenge), `/events/submit/pow.js`,
 *   `/events/submit/submit.css`.
 *
 * With SUBMISSIONS=off nothing is registered (404). The pages send their own CSP (scripts and
 * styles from this origin only), may not be framed and are never stored. An error that reaches none
 * of its handlers (a form or URL the server cannot read, a method its paths do not take) is a page
 * too (web/error-shapes.ts).
 *
 * @example
 *   registerSubmissionsFace(app, { services });
 */
import type { FaceDeps } from '../faces.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../domain/errors.js';
import { ANONYMOUS, type Viewer } from '../domain/permissions.js';
import type { Locale, SubmissionInput } from '../domain/submissions/index.js';
import { localeOf } from '../domain/submissions/locale.js';
import { registerErrorShape, withErrorHeaders } from '../web/error-shapes.js';
import { sessionOfRequest } from '../web/sessions.js';
import { FIELD_ERRORS, FORM_ERRORS_FR, messagesOf, type Messages } from './messages.js';
import { errorPage, formPage, notFoundPage, POW_SCRIPT, SCRIPT_PATH, signInPage, statusPage, STYLE_PATH, STYLESHEET, type FormValues, type FormView, type Option, type Site } from './views.js';
import { UploadedFile } from '../web/uploads.js';
import type { ImageRow } from '../store/schema.js';

export const SUBMIT_PATH = '/events/submit/';
export const STATUS_PATH = '/events/submit/status/';
export const CHALLENGE_PATH = '/events/submit/challenge';
/** The nonce action of the form for signed-in submitters. */
const NONCE_ACTION = 'submit_event';

// img-src https: for the site's icon alone (SITE_ICON may be an https URL); the pages show no other image.
const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' https:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/** The form's flat values back from the parsed body (`venue[city]` style keys, `categories[]`). */
function valuesOf(body: Record<string, unknown>): FormValues {
  const out: FormValues = {};
  for (const [k, v] of Object.entries(body)) {
    if (typeof v === 'string') out[k] = v;
    else if (Array.isArray(v)) out[`${k}[]`] = v.map(String);
    else if (v && typeof v === 'object') for (const [k2, v2] of Object.entries(v as Record<string, unknown>)) if (typeof v2 === 'string') out[`${k}[${k2}]`] = v2;
  }
  return out;
}

/** The submission from the form's fields: dates and times joined, an existing or a new venue and organizer. */
function inputOf(v: FormValues, siteTimezone: string): { input: SubmissionInput; errors: Record<string, string> } {
  const get = (k: string) => {
    const x = v[k];
    return (Array.isArray(x) ? x[0] : x)?.trim() ?? '';
  };
  const errors: Record<string, string> = {};
  const startTime = get('start_time');
  const endTime = get('end_time');
  const allDay = get('all_day') !== '' || (startTime === '' && endTime === '');
  const date = (d: string, t: string) => (d === '' ? '' : allDay ? d : `${d} ${t || '00:00'}`);
  const input: SubmissionInput = {
    title: get('title'),
    description: get('description'),
    start_date: date(get('start_date'), startTime),
    end_date: date(get('end_date'), endTime || startTime),
    timezone: get('timezone') || siteTimezone,
    all_day: allDay,
    image: get('image'),
    cost: get('cost'),
    website: get('website'),
    name: get('name'),
    email: get('email'),
  };
  if (get('venue_id') !== '') input.venue = get('venue_id');
  else input.venue = { venue: get('venue[venue]'), address: get('venue[address]'), city: get('venue[city]'), zip: get('venue[zip]'), country: get('venue[country]') };
  if (get('organizer_id') !== '') input.organizer = get('organizer_id');
  else input.organizer = { organizer: get('organizer[organizer]'), email: get('organizer[email]'), phone: get('organizer[phone]'), website: get('organizer[website]') };
  const cats = v['categories[]'];
  input.categories = Array.isArray(cats) ? cats : cats ? [cats] : [];
  return { input, errors };
}

/** The form's values from a submission (the status page's edit form). */
function valuesFromSubmission(sub: Record<string, any>): FormValues {
  const ev = (sub.event ?? {}) as Record<string, any>;
  const [sd = '', st = ''] = String(ev.start_date ?? '').split(' ');
  const [ed = '', et = ''] = String(ev.end_date ?? '').split(' ');
  const out: FormValues = {
    title: String(ev.title ?? ''),
    description: String(ev.description ?? ''),
    start_date: sd,
    start_time: ev.all_day ? '' : st.slice(0, 5),
    end_date: ed,
    end_time: ev.all_day ? '' : et.slice(0, 5),
    timezone: String(ev.timezone ?? ''),
    cost: String(ev.cost ?? ''),
    website: String(ev.website ?? ''),
    image: String(ev.image ?? ''),
    'categories[]': ((ev.categories ?? []) as Array<{ id: number }>).map((c) => String(c.id)),
  };
  if (ev.all_day) out.all_day = '1';
  if (ev.venue) {
    if (ev.venue.status === 'publish') out.venue_id = String(ev.venue.id);
    else
      Object.assign(out, {
        'venue[venue]': String(ev.venue.venue ?? ''),
        'venue[address]': String(ev.venue.address ?? ''),
        'venue[city]': String(ev.venue.city ?? ''),
        'venue[zip]': String(ev.venue.zip ?? ''),
        'venue[country]': String(ev.venue.country ?? ''),
      });
  }
  const org = (ev.organizer ?? [])[0] as Record<string, any> | undefined;
  if (org) {
    if (org.status === 'publish') out.organizer_id = String(org.id);
    else
      Object.assign(out, {
        'organizer[organizer]': String(org.organizer ?? ''),
        'organizer[email]': String(org.email ?? ''),
        'organizer[phone]': String(org.phone ?? ''),
        'organizer[website]': String(org.website ?? ''),
      });
  }
  return out;
}

/** Field and form errors of a refused submission, in the page's language. */
function errorsOf(e: ApiError, locale: Locale): { errors: Record<string, string>; formError?: string } {
  const params = (e.data as { params?: Record<string, string> }).params;
  if (e.code === 'rest_invalid_param' && params && typeof params === 'object') {
    const errors: Record<string, string> = {};
    for (const [k, msg] of Object.entries(params)) errors[k] = FIELD_ERRORS[locale][k] ?? msg;
    return { errors };
  }
  return { errors: {}, formError: locale === 'fr' ? (FORM_ERRORS_FR[e.code] ?? e.message) : e.message };
}

/** What the face's handlers share. */
interface SubmitFace {
  config: FaceDeps['services']['config'];
  services: FaceDeps['services'];
  submissions: FaceDeps['services']['submissions'];
  sessions: FaceDeps['services']['sessions'];
  /** the calendar's public list, the pages' way home */
  home: string;
  site: Site;
}

const page = (reply: FastifyReply, status: number, body: string) =>
  reply
    .code(status)
    .header('content-type', 'text/html; charset=UTF-8')
    .header('cache-control', 'no-store')
    .header('content-security-policy', CSP)
    .header('x-frame-options', 'DENY')
    .header('referrer-policy', 'no-referrer')
    .send(body);
const localeFor = (req: FastifyRequest): Locale => localeOf(req.headers['accept-language']);

export function registerSubmissionsFace(app: FastifyInstance, { services }: Pick<FaceDeps, 'services'>): void {
  const config = services.config;
  if (config.submissions === 'off') return;
  const submissions = services.submissions;
  const sessions = services.sessions;
  const site: Site = {
    // Read per page: administrators change the site's name while the server runs.
    get siteName() {
      return config.siteName;
    },
    get siteIcon() {
      return config.siteIcon;
    },
    url: (path) => `${services.links.siteUrl}${path}`,
  };
  // Read at each use (`services.links` is the calendar at hand's): each calendar's mails and pages link to its own.
  submissions.setPaths({ status: (token) => `${services.links.siteUrl}${STATUS_PATH}${token}`, queue: () => `${services.links.siteUrl}${config.adminPath}/moderation` });
  submissions.setLogger((message, error) => app.log.warn({ err: error }, message));
  app.addHook('onClose', async () => submissions.close());
  const c: SubmitFace = {
    config,
    services,
    submissions,
    sessions,
    get home() {
      return `${services.links.siteUrl}/events/`;
    },
    site,
  };

  // What reaches none of the face's handlers (a body or URL it cannot read, a method its paths do
  // not take) is a page too.
  registerErrorShape(app, {
    owns: (path) => path === SUBMIT_PATH.slice(0, -1) || path.startsWith(SUBMIT_PATH),
    send: (req, reply, error) => {
      const locale = localeFor(req);
      const m = messagesOf(locale);
      withErrorHeaders(reply, error);
      if (error.code === 'rest_no_route') return page(reply, 404, notFoundPage(m, site, c.home));
      return page(reply, error.status, errorPage(m, site, locale === 'fr' ? (FORM_ERRORS_FR[error.code] ?? m.requestError) : error.message, c.home));
    },
  });

  app.get(STYLE_PATH, async (_req, reply) => reply.header('content-type', 'text/css; charset=UTF-8').header('cache-control', 'public, max-age=3600').send(STYLESHEET));
  app.get(SCRIPT_PATH, async (_req, reply) => reply.header('content-type', 'text/javascript; charset=UTF-8').header('cache-control', 'public, max-age=3600').send(POW_SCRIPT));
  if (submissions.pow) {
    const pow = submissions.pow;
    app.get(CHALLENGE_PATH, async (_req, reply) =>
      reply
        .header('cache-control', 'no-store')
        .header('content-type', 'application/json; charset=UTF-8')
        .send(JSON.stringify(await pow.challenge())),
    );
  }

  app.get(SUBMIT_PATH, async (req, reply) => {
    const m = messagesOf(localeFor(req));
    const { viewer, formNonce } = await viewerOf(c, req);
    if (config.submissions === 'registered' && viewer.id <= 0) return page(reply, 200, signInPage(m, site, `${config.adminPath}/login`));
    return page(reply, 200, formPage(m, site, await formView(c, m, {}, viewer.id > 0, formNonce)));
  });

  app.post(SUBMIT_PATH, async (req, reply) => sendForm(c, req, reply));

  app.get<{ Params: { token: string } }>(`${STATUS_PATH}:token`, async (req, reply) => {
    const m = messagesOf(localeFor(req));
    const sent = (req.query as Record<string, unknown>).sent !== undefined;
    return statusOf(c, req, reply, sent ? m.received : undefined);
  });

  app.post<{ Params: { token: string } }>(`${STATUS_PATH}:token`, async (req, reply) => sendStatus(c, req, reply));
}

/** The signed-in user (their session and, for a POST, the form's nonce), or anonymous. */
async function viewerOf({ sessions }: SubmitFace, req: FastifyRequest, nonce?: string): Promise<{ viewer: Viewer; formNonce?: string }> {
  const session = await sessionOfRequest(req, sessions);
  if (!session || !session.complete || !sessions.usable(session)) return { viewer: ANONYMOUS };
  if (nonce !== undefined && sessions.verifyNonce(req.sessionToken!, session, nonce, NONCE_ACTION) === false) return { viewer: ANONYMOUS };
  return { viewer: session.viewer, formNonce: sessions.nonce(req.sessionToken!, session, NONCE_ACTION) };
}

/** The published venues and organizers and the categories the form offers. */
async function choices({ services }: SubmitFace): Promise<{ venues: Option[]; organizers: Option[]; categories: Option[] }> {
  const env = { maxPerPage: 100 };
  const [v, o, c] = await Promise.all([
    services.venues.list(ANONYMOUS, { page: 1, per_page: 100 }, env),
    services.organizers.list(ANONYMOUS, { page: 1, per_page: 100 }, env),
    services.categories.list({ page: 1, perPage: 100, hideEmpty: false, orderby: 'name', order: 'asc' }),
  ]);
  const name = (r: { title: string }) => r.title.replace(/&amp;/g, '&').replace(/&#0?39;/g, "'");
  return {
    venues: v.records.filter((r) => r.status === 'publish').map((r) => ({ id: Number(r.id), name: name(r) })),
    organizers: o.records.filter((r) => r.status === 'publish').map((r) => ({ id: Number(r.id), name: name(r) })),
    categories: c.terms.map((t) => ({ id: Number(t.id), name: String(t.name) })),
  };
}

async function formView(c: SubmitFace, m: Messages, values: FormValues, signedIn: boolean, nonce: string | undefined, extra: Partial<FormView> = {}): Promise<FormView> {
  return {
    action: SUBMIT_PATH,
    values: { timezone: c.config.timezone, ...values },
    errors: {},
    ...(await choices(c)),
    timezone: c.config.timezone,
    stamp: await c.submissions.formStamp(),
    ...(c.submissions.pow ? { pow: { challenge: CHALLENGE_PATH } } : {}),
    signedIn,
    ...(nonce ? { nonce } : {}),
    maxDescription: c.config.submissionsMaxDescription,
    maxLinks: c.config.submissionsMaxLinks,
    pictureMaxBytes: c.config.mediaMaxBytes,
    ...extra,
  };
}

/** `POST /events/submit/`: the proposal made (303 to its status page), or the form again with what is wrong. */
async function sendForm(c: SubmitFace, req: FastifyRequest, reply: FastifyReply) {
  const locale = localeFor(req);
  const m = messagesOf(locale);
  const body = (req.body ?? {}) as Record<string, unknown>;
  const nonce = typeof body._wpnonce === 'string' ? body._wpnonce : undefined;
  const { viewer, formNonce } = nonce !== undefined ? await viewerOf(c, req, nonce) : { viewer: ANONYMOUS, formNonce: undefined };
  if (c.config.submissions === 'registered' && viewer.id <= 0) return page(reply, 401, signInPage(m, c.site, `${c.config.adminPath}/login`));
  const values = valuesOf(body);
  const { input } = inputOf(values, c.config.timezone);
  const started = await c.submissions.stampTime(body._started);
  // The picture (one, optional) goes into the media library first, as the submitter's (or
  // nobody's) upload, and the proposal points at it; a proposal refused here takes it away again.
  let picture: ImageRow | undefined;
  if (body.picture instanceof UploadedFile) {
    try {
      picture = await c.services.media.upload({ bytes: body.picture.bytes, filename: body.picture.filename, alt: typeof body.picture_alt === 'string' ? body.picture_alt : '' }, viewer);
    } catch (e) {
      if (!(e instanceof ApiError) || e.status >= 500) throw e;
      const kind = e.code === 'rest_upload_file_too_big' || e.code === 'rest_upload_too_many_pixels' ? 'picture_too_big' : e.code === 'rest_upload_unreadable' ? 'picture_unreadable' : 'picture_type';
      const errors = { picture: FIELD_ERRORS[locale][kind] ?? e.message };
      return page(reply, e.status, formPage(m, c.site, await formView(c, m, values, viewer.id > 0, formNonce, { errors })));
    }
    input.image = picture.url;
  }
  try {
    const { token } = await c.submissions.create(input, {
      viewer,
      ip: req.ip,
      locale,
      honeypot: typeof body.homepage === 'string' ? body.homepage : '',
      // A form without a (valid) stamp counts as sent at once.
      startedMs: started ?? Date.now(),
      ...(body.altcha !== undefined ? { pow: body.altcha } : {}),
    });
    return reply.code(303).header('location', `${STATUS_PATH}${token}?sent=1`).header('cache-control', 'no-store').send();
  } catch (e) {
    if (picture) await c.services.media.remove(picture);
    if (!(e instanceof ApiError) || e.status >= 500) throw e;
    const { errors, formError } = errorsOf(e, locale);
    for (const [k, v] of Object.entries(e.headers)) reply.header(k, v);
    return page(reply, e.status, formPage(m, c.site, await formView(c, m, values, viewer.id > 0, formNonce, { errors, ...(formError ? { formError } : {}) })));
  }
}

/** The status page: the submission, a notice, and its edit form (with what was wrong) while it may be edited. */
async function statusOf(
  c: SubmitFace,
  req: FastifyRequest<{ Params: { token: string } }>,
  reply: FastifyReply,
  notice?: string,
  edit?: { values: FormValues; errors: Record<string, string>; formError?: string },
  status = 200,
): Promise<FastifyReply> {
  const locale = localeFor(req);
  const m = messagesOf(locale);
  const token = req.params.token;
  let sub: Record<string, any>;
  try {
    sub = await c.submissions.view(token);
  } catch (e) {
    if (e instanceof ApiError && e.status === 404) return page(reply, 404, notFoundPage(m, c.site, c.home));
    throw e;
  }
  const action = `${STATUS_PATH}${token}`;
  const editView = sub.editable
    ? {
        ...(await formView(c, m, edit?.values ?? valuesFromSubmission(sub), true, undefined, {
          action,
          editing: true,
          errors: edit?.errors ?? {},
          ...(edit?.formError ? { formError: edit.formError } : {}),
        })),
      }
    : undefined;
  return page(reply, status, statusPage(m, c.site, { submission: sub, ...(notice ? { notice } : {}), ...(editView ? { edit: editView } : {}), action, home: c.home, siteZone: c.config.timezone }));
}

/** `POST` on a status page: `_action=withdraw`, else the submitter's edit. */
async function sendStatus(c: SubmitFace, req: FastifyRequest<{ Params: { token: string } }>, reply: FastifyReply) {
  const locale = localeFor(req);
  const m = messagesOf(locale);
  const body = (req.body ?? {}) as Record<string, unknown>;
  const token = req.params.token;
  try {
    if (body._action === 'withdraw') {
      await c.submissions.withdraw(token);
      return statusOf(c, req, reply, m.withdrawn);
    }
    const values = valuesOf(body);
    const { input } = inputOf(values, c.config.timezone);
    delete input.name;
    delete input.email;
    try {
      await c.submissions.edit(token, input);
    } catch (e) {
      if (!(e instanceof ApiError) || e.status >= 500 || e.status === 404) throw e;
      const { errors, formError } = errorsOf(e, locale);
      return statusOf(c, req, reply, undefined, { values, errors, ...(formError ? { formError } : {}) }, e.status);
    }
    return statusOf(c, req, reply, m.saved);
  } catch (e) {
    if (e instanceof ApiError && e.status === 404) return page(reply, 404, notFoundPage(m, c.site, c.home));
    if (e instanceof ApiError && e.status === 409) return statusOf(c, req, reply, locale === 'fr' ? (FORM_ERRORS_FR[e.code] ?? e.message) : e.message, undefined, 409);
    throw e;
  }
}
