import { useMemo } from 'preact/hooks';
import { encode } from 'uqr';

/** Modules of light margin around the code: scanners need a quiet zone (the QR standard asks for 4). */
const QUIET_ZONE = 4;

/** The path of a QR matrix's dark modules: one rectangle per horizontal run (not one square per module). */
function darkPath(data: boolean[][]): string {
  let path = '';
  data.forEach((row, y) => {
    let x = 0;
    while (x < row.length) {
      if (!row[x]) {
        x += 1;
        continue;
      }
      const start = x;
      while (row[x]) x += 1;
      path += `M${start},${y}h${x - start}v1h${start - x}z`;
    }
  });
  return path;
}

/**
 * `text` as a QR code: an SVG drawn with Preact elements from uqr's matrix (no HTML string is injected), dark on
 * white in both themes since phone cameras expect that, with `label` as its accessible name.
 */
export function QrCode({ text, label }: { text: string; label: string }) {
  const { size, path } = useMemo(() => {
    const qr = encode(text, { ecc: 'L', border: QUIET_ZONE });
    return { size: qr.size, path: darkPath(qr.data) };
  }, [text]);
  return (
    <svg
      class="qr-code"
      role="img"
      aria-label={label}
      viewBox={`0 0 ${size} ${size}`}
      shape-rendering="crispEdges"
      xmlns="http://www.w3.org/2000/svg"
    >
      <rect width={size} height={size} fill="#ffffff" />
      <path d={path} fill="#000000" />
    </svg>
  );
}
