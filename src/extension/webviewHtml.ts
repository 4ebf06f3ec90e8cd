/**
 * The HTML shell of the RuntimeContext editor webview: a strict Content
 * Security Policy (nothing by default; scripts only with the per-load nonce;
 * styles and fonts only from the extension's bundle), the codicon stylesheet
 * under the id vscode-elements looks for, and the page bundle. Pure: takes
 * the webview's URIs as strings so unit tests can check the policy.
 */
import { randomBytes } from 'node:crypto';

export interface WebviewHtmlInput {
  /** webview.cspSource */
  cspSource: string;
  scriptUri: string;
  styleUri: string;
  codiconsUri: string;
  nonce?: string;
}

/** A fresh nonce (base64url, 128 bits). */
export function newNonce(): string {
  return randomBytes(16).toString('base64url');
}

/** Escapes a string for an HTML attribute value. */
function attr(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export function contentSecurityPolicy(cspSource: string, nonce: string): string {
  return [
    "default-src 'none'",
    `img-src ${cspSource} data:`,
    `font-src ${cspSource}`,
    `style-src ${cspSource}`,
    `script-src 'nonce-${nonce}'`,
  ].join('; ');
}

export function webviewHtml(input: WebviewHtmlInput): string {
  const nonce = input.nonce ?? newNonce();
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${attr(contentSecurityPolicy(input.cspSource, nonce))}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${attr(input.codiconsUri)}" id="vscode-codicon-stylesheet">
<link rel="stylesheet" href="${attr(input.styleUri)}">
<title>Context &amp; Fork</title>
</head>
<body>
<div id="root"></div>
<script nonce="${attr(nonce)}" src="${attr(input.scriptUri)}"></script>
</body>
</html>`;
}
