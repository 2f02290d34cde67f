/**
 * Offers a file the page holds (an export it fetched with the token) as a
 * download: a blob: URL behind a link with `download`, clicked, then released.
 * A download is a navigation, which the dashboard's CSP does not restrict.
 */
export function saveFile(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  // Released once the browser has taken the file (revoking at once may cancel it).
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
