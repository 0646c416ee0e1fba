/**
 * Whether a diagnostic's file is the edited template (marked in the editor) rather than another
 * file it imports, such as the helper library under /pressroom/ or a data file.
 */
export function isTemplateFile(file: string): boolean {
  return !file.startsWith('/pressroom/') && !/^\/?data\.(xml|json)$/.test(file) && !file.startsWith('/fonts/') && !file.startsWith('/images/');
}
