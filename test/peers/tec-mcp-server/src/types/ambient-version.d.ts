declare module '../../../version.js' {
  export const VERSION: string;
}


