/** node-wpapi 1.2 ships no type declarations; the tests use it untyped. */
declare module 'wpapi';
