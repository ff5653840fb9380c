import { createTheme, type CSSVariablesResolver } from '@mantine/core';

export const theme = createTheme({
  primaryColor: 'blue',
  // Shade 8 keeps white text on filled buttons above WCAG AA contrast (shade 6 is 3.5:1).
  primaryShade: { light: 8, dark: 8 },
  defaultRadius: 'md',
  // System fonts only: nothing is fetched from a font CDN.
  fontFamily:
    'system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "PingFang SC", "Microsoft YaHei", sans-serif',
  fontFamilyMonospace: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace',
  components: {
    // The focus placeholder Mantine puts first in a menu is a role=presentation child of
    // role=menu, which ARIA does not allow (axe: aria-required-children). (A plain object, not
    // Menu.extend: importing Menu here would put it in the entry chunk.)
    Menu: { defaultProps: { withInitialFocusPlaceholder: false } },
  },
});

/** Mantine's dimmed text (gray 6 on white, 3.3:1) and its coloured text on light backgrounds
 *  (yellow 9 on yellow-light is 2.8:1, teal 9 on a hovered row 4.1:1) are below WCAG AA; in
 *  the light scheme these keep 4.5:1 or more on white, gray 1 and the light variants. */
const AA_TEXT: Record<string, string> = {
  blue: '#1864ab',
  teal: '#066649',
  red: '#b02525',
  orange: '#a33a06',
  yellow: '#7a4a00',
};

export const cssVariablesResolver: CSSVariablesResolver = () => ({
  variables: {},
  light: {
    '--mantine-color-dimmed': 'var(--mantine-color-gray-7)',
    // Field errors (and an invalid input's text) are red 6 by default: 3.3:1 on white.
    '--mantine-color-error': 'var(--mantine-color-red-light-color)',
    '--mantine-color-gray-light-color': 'var(--mantine-color-gray-8)',
    ...Object.fromEntries(
      Object.entries(AA_TEXT).flatMap(([color, text]) => [
        [`--mantine-color-${color}-light-color`, text],
        [`--mantine-color-${color}-text`, text],
      ]),
    ),
  },
  dark: {
    '--mantine-color-dimmed': 'var(--mantine-color-dark-1)',
  },
});
