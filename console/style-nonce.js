// The nonce that lets a <style> element of this page through the Content-Security-Policy: the
// service writes a fresh one into each page it serves (a <meta> whose nonce only scripts can read).
export function styleNonce() {
  return document.querySelector('meta[name="style-nonce"]')?.nonce ?? '';
}
