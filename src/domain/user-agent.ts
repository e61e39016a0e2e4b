/**
 * A browser's User-Agent in words ("Firefox on Windows", "Safari on iPhone"), for the sessions
 * list: the browser and the system, from the tokens browsers have sent for years. Anything else
 * (a script, an unknown browser) is "Unknown browser" or its first product token.
 *
 * @example
 *   describeUserAgent('Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Firefox/128.0'); // { browser: 'Firefox', os: 'Windows' }
 */
export interface Device {
  /** '' when unknown */
  browser: string;
  /** '' when unknown */
  os: string;
}

const BROWSERS: Array<[RegExp, string]> = [
  [/\bEdg(e|A|iOS)?\//, 'Edge'],
  [/\b(OPR|Opera)\//, 'Opera'],
  [/\bSamsungBrowser\//, 'Samsung Internet'],
  [/\b(Firefox|FxiOS)\//, 'Firefox'],
  [/\b(HeadlessChrome|Chrome|CriOS|Chromium)\//, 'Chrome'],
  [/\bVersion\/[\d.]+.*Safari\//, 'Safari'],
  [/\bcurl\//, 'curl'],
];

const SYSTEMS: Array<[RegExp, string]> = [
  [/\biPhone\b/, 'iPhone'],
  [/\biPad\b/, 'iPad'],
  [/\bAndroid\b/, 'Android'],
  [/\bCrOS\b/, 'ChromeOS'],
  [/\bWindows\b/, 'Windows'],
  [/\bMac OS X\b|\bMacintosh\b/, 'macOS'],
  [/\bLinux\b/, 'Linux'],
];

export function describeUserAgent(ua: string): Device {
  const browser = BROWSERS.find(([re]) => re.test(ua))?.[1] ?? '';
  const os = SYSTEMS.find(([re]) => re.test(ua))?.[1] ?? '';
  if (browser === '' && os === '') {
    const product = /^([A-Za-z][\w.-]{0,40})\//.exec(ua)?.[1];
    return { browser: product && product !== 'Mozilla' ? product : '', os: '' };
  }
  return { browser, os };
}
