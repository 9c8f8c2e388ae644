import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';

/**
 * Emails and servers for the preview's browser tests (docs/decisions/0046-preview-widths.md,
 * 0047-forced-dark-approximation.md). Colours are written as rgb() so a test can compare them
 * with getComputedStyle.
 */

export const DESKTOP_COLOUR = 'rgb(29, 78, 216)';
export const MOBILE_COLOUR = 'rgb(21, 128, 61)';
export const LIGHT_TEXT = 'rgb(17, 24, 39)';
export const DARK_RULE_TEXT = 'rgb(249, 250, 251)';

/**
 * A responsive email as templates write them: 600 px wide with a `max-width: 600px` breakpoint
 * (its heading turns green on mobile), dark-mode rules (light text on a dark card), a white
 * `bgcolor` table and an image with alt text.
 */
export function responsiveEmail(imageOrigin: string): string {
  return `<!DOCTYPE html>
<html lang="en"><head>
<meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark"><meta name="supported-color-schemes" content="light dark">
<style>
  .wrap { width: 600px; margin: 0 auto; }
  #layout { color: ${DESKTOP_COLOUR}; margin: 0 0 12px; }
  .theme { color: ${LIGHT_TEXT}; }
  @media (max-width: 600px) {
    .wrap { width: 100% !important; }
    #layout { color: ${MOBILE_COLOUR} !important; }
  }
  @media (prefers-color-scheme: dark) {
    .theme { background-color: rgb(17, 24, 39) !important; color: ${DARK_RULE_TEXT} !important; }
  }
</style></head>
<body style="margin:0;background-color:#f3f4f6">
<table role="presentation" id="card" class="wrap" width="600" align="center" bgcolor="#ffffff" cellpadding="0" cellspacing="0">
<tr><td id="cell" class="theme" style="padding:24px;font-family:Arial,sans-serif">
<h1 id="layout">Spring sale</h1>
<p id="copy">Everything is 20% off this week. <a id="shop" href="https://shop.example/sale">Shop now</a></p>
<img id="hero" src="${imageOrigin}/hero.png" alt="Spring flowers on a kitchen table" style="display:block;max-width:100%;font:16px Arial,sans-serif">
</td></tr></table>
</body></html>`;
}

/** An email 3,000 px tall with a marker at its very end. */
export const TALL_EMAIL = `<!DOCTYPE html><html><body style="margin:0">
<div style="height:3000px;background:linear-gradient(#ffffff,#dbeafe)"><h1 style="margin:0;padding:16px">Newsletter</h1></div>
<p id="end" style="margin:0;padding:16px">The end</p>
</body></html>`;

export interface FontServer {
  origin: string;
  /** Paths requested so far. */
  requests: string[];
  close: () => Promise<void>;
}

/**
 * An https server on loopback with a throw-away self-signed certificate (contexts that load from
 * it need `ignoreHTTPSErrors`), serving a style sheet whose @font-face names a real TrueType font.
 */
export async function startFontServer(): Promise<FontServer> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'proofmail-font-server-'));
  const key = path.join(dir, 'key.pem');
  const cert = path.join(dir, 'cert.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      key,
      '-out',
      cert,
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ],
    { stdio: 'ignore' },
  );
  const font = fs.readFileSync('/usr/share/fonts/truetype/dejavu/DejaVuSerif-Bold.ttf');
  const requests: string[] = [];
  const server = https.createServer(
    { key: fs.readFileSync(key), cert: fs.readFileSync(cert) },
    (req, res) => {
      requests.push(req.url ?? '');
      const cors = { 'Access-Control-Allow-Origin': '*', 'Cache-Control': 'no-store' };
      if (req.url === '/fonts.css') {
        res.writeHead(200, { ...cors, 'Content-Type': 'text/css' });
        res.end(`@font-face{font-family:"Preview Test Serif";src:url(/serif.ttf) format("truetype")}`);
      } else if (req.url === '/serif.ttf') {
        res.writeHead(200, { ...cors, 'Content-Type': 'font/ttf' });
        res.end(font);
      } else {
        res.writeHead(404, cors);
        res.end();
      }
    },
  );
  server.keepAliveTimeout = 1;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `https://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          fs.rmSync(dir, { recursive: true, force: true });
          resolve();
        });
      }),
  };
}

/** An email that loads a web font the way templates do, next to hints the preview must drop. */
export function webFontEmail(fontOrigin: string, canaryOrigin: string): string {
  return `<!DOCTYPE html><html><head>
<link rel="preconnect" href="${canaryOrigin}/preconnect">
<link rel="stylesheet" href="${fontOrigin}/fonts.css">
<link rel="stylesheet" href="${canaryOrigin}/plain-http.css">
</head><body><h1 id="font" style="font-family:'Preview Test Serif',monospace">Web font</h1></body></html>`;
}
