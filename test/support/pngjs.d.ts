// pngjs 5 ships no types; the tests only read PNG files (a downloaded QR code, a screenshot).
declare module 'pngjs' {
  export const PNG: { sync: { read(data: Buffer): { width: number; height: number; data: Buffer } } };
}
