import { createHash } from 'node:crypto';

/**
 * The page a used or expired one-time sign-in link (`GET /signin?code=…`) answers with: styled like the web
 * app's sign-in card (its colours, light and dark), saying what happened and what to do next. Self-contained
 * — the app's stylesheet has a hashed name only the build knows — so the style is inline and allowed by its
 * hash alone in {@link EXPIRED_LINK_CSP}; the page runs no script at all.
 */
const STYLE = `
:root{color-scheme:light dark;--bg:#fff;--surface:#fff;--border:#e4e6e1;--text:#1b1f1e;--text-2:#565e5a;
--accent:#1f6f5c;--accent-soft:#e2f0eb;--on-accent:#fff;--code-bg:#f1f2ef}
@media (prefers-color-scheme:dark){:root{--bg:#141817;--surface:#1d2322;--border:#2c3432;--text:#e7ebe9;
--text-2:#a6afab;--accent:#4cbf9c;--accent-soft:#1b3530;--on-accent:#08211b;--code-bg:#262d2b}}
*{box-sizing:border-box}
html,body{height:100%;margin:0}
body{display:grid;place-items:center;padding:24px 16px;color:var(--text);line-height:1.5;
font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,"Noto Sans",sans-serif;
background:radial-gradient(circle at 50% 0%,var(--accent-soft),transparent 60%),var(--bg)}
main{display:flex;flex-direction:column;gap:8px;width:100%;max-width:420px;padding:32px 28px;
border:1px solid var(--border);border-radius:18px;background:var(--surface);
box-shadow:0 2px 6px rgb(16 24 20/.06),0 8px 24px rgb(16 24 20/.06)}
h1{margin:4px 0 0;font-size:1.4rem;line-height:1.25}
p{margin:0 0 8px;font-size:.9375rem;color:var(--text-2)}
code{padding:1px 6px;border-radius:6px;background:var(--code-bg);color:var(--text);font-size:.875em;
font-family:ui-monospace,SFMono-Regular,"SF Mono",Menlo,Consolas,"Liberation Mono",monospace}
a.btn{display:flex;align-items:center;justify-content:center;min-height:42px;margin-top:8px;
border-radius:8px;background:var(--accent);color:var(--on-accent);font-weight:600;text-decoration:none}
a.btn:focus-visible{outline:3px solid var(--accent);outline-offset:2px}
`;

const STYLE_HASH = createHash('sha256').update(STYLE).digest('base64');

/** Only the inline style above and the app's icon: no scripts, no forms, no framing. */
export const EXPIRED_LINK_CSP = [
  "default-src 'none'",
  `style-src 'sha256-${STYLE_HASH}'`,
  "img-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** The page's HTML; fixed text (nothing from the request is echoed). */
export const EXPIRED_LINK_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sign-in link used or expired · Wren</title>
<style>${STYLE}</style>
</head>
<body>
<main>
<img src="/icon.svg" alt="" width="56" height="56">
<h1>This sign-in link has expired or was already used</h1>
<p>A sign-in link works once, within 10 minutes of being made.</p>
<p>For a new one, run <code>wren web open</code> on the computer where Wren runs
(<code>wren web open --print</code> prints the link instead of opening a browser).</p>
<p>Or sign in with the gateway token: it was printed when Wren first started, and <code>wren token --rotate</code> makes a new one (and signs every browser out).</p>
<a class="btn" href="/">Sign in with the gateway token</a>
</main>
</body>
</html>
`;
