// CRC16-CCITT-FALSE (poly 0x1021, init 0xFFFF, no reflection, no final XOR): the checksum that
// closes every Pix BR Code (field 63).

const POLY = 0x1021;

const TABLE: Uint16Array = (() => {
  const table = new Uint16Array(256);
  for (let byte = 0; byte < 256; byte++) {
    let crc = byte << 8;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? (crc << 1) ^ POLY : crc << 1;
    table[byte] = crc & 0xffff;
  }
  return table;
})();

const encoder = new TextEncoder();

/** The CRC of the UTF-8 bytes of `payload`, as 4 upper-case hex digits. */
export function crc16CcittFalse(payload: string): string {
  let crc = 0xffff;
  for (const byte of encoder.encode(payload)) {
    crc = ((crc << 8) ^ TABLE[((crc >> 8) ^ byte) & 0xff]) & 0xffff;
  }
  return crc.toString(16).toUpperCase().padStart(4, '0');
}
