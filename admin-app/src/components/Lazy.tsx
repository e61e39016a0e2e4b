/** A component loaded on first use (its own chunk), with a loading state and an error state. */
import type { ComponentType } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ErrorState, Loading } from './States';

export function lazyComponent<P extends object>(load: () => Promise<ComponentType<P>>): ComponentType<P> {
  let loaded: ComponentType<P> | null = null;
  return function LazyComponent(props: P) {
    const [C, setC] = useState<ComponentType<P> | null>(() => loaded);
    const [error, setError] = useState<unknown>(null);
    useEffect(() => {
      if (C) return;
      load().then(
        (c) => {
          loaded = c;
          setC(() => c);
        },
        (e) => setError(e),
      );
    }, []);
    if (error) return <ErrorState error={error} />;
    if (!C) return <Loading />;
    return <C {...props} />;
  };
}
