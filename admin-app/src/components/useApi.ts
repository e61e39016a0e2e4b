/**
 * Load from the API in a component: `{ data, headers, error, loading, reload }`, reloaded when
 * `deps` change; an answer that arrives after a newer request started is dropped.
 *
 * @example
 *   const venues = useApi<{ venues: Venue[] }>('calendar/events/v1/venues', { per_page: 50 });
 */
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { api, type ApiOptions } from '../lib/api';

export function useApi<T>(path: string | null, query?: ApiOptions['query']) {
  const [state, setState] = useState<{ data: T | null; headers: Headers | null; error: unknown; loading: boolean }>({ data: null, headers: null, error: null, loading: path !== null });
  const seq = useRef(0);
  const key = path === null ? null : path + JSON.stringify(query ?? {});
  const load = useCallback(async () => {
    if (path === null) return;
    const mine = ++seq.current;
    setState((s) => ({ ...s, loading: true, error: null }));
    try {
      const res = await api<T>(path, { query });
      if (mine === seq.current) setState({ data: res.data, headers: res.headers, error: null, loading: false });
    } catch (e) {
      if (mine === seq.current) setState((s) => ({ ...s, error: e, loading: false }));
    }
  }, [key]);
  useEffect(() => {
    void load();
  }, [load]);
  return { ...state, reload: load };
}
