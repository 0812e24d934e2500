/**
 * Applies a tenant's branding and theme (docs/api.md §2.4; `GET /api/branding`, `GET /api/theme`) to the
 * document: colour tokens become CSS custom properties `--color-<token>` of the chosen mode,
 * typography `--font-family` and `--font-size` (px), corners `--radius` (px); the page title and
 * favicon follow the branding. Values are set through the CSSOM, never spliced into markup.
 */
import type { Branding, Palette, Theme } from './api';

export type Mode = 'light' | 'dark';

/** Sets the CSS custom properties of `theme` in `mode` on the root element. */
export function applyTheme(theme: Theme, mode: Mode, root: HTMLElement = document.documentElement): void {
  const palette: Palette = theme[mode];
  for (const [token, colour] of Object.entries(palette)) root.style.setProperty(`--color-${token}`, colour);
  root.style.setProperty('--font-family', theme.typography.fontFamily);
  root.style.setProperty('--font-size', `${theme.typography.baseSizePx}px`);
  root.style.setProperty('--radius', `${theme.radiusPx}px`);
  root.dataset.mode = mode;
  root.style.colorScheme = mode;
}

/** Sets the document title and favicon from the branding. */
export function applyBranding(branding: Branding): void {
  document.title = `${branding.displayName} · Trade`;
  if (!branding.faviconUrl) return;
  let link = document.querySelector<HTMLLinkElement>('link[rel="icon"]');
  if (!link) {
    link = document.createElement('link');
    link.rel = 'icon';
    document.head.append(link);
  }
  link.href = branding.faviconUrl;
}
