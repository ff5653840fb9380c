// Brand icons for the presets and providers, bundled from @lobehub/icons-static-svg (files
// served by our own binary; nothing is fetched from elsewhere). Monochrome logos are drawn
// as a mask in the text colour so they read in both themes.
import { ThemeIcon } from '@mantine/core';
import { Boxes, ListOrdered, MessagesSquare } from 'lucide-react';

import bailian from '@lobehub/icons-static-svg/icons/bailian-color.svg?url';
import cohere from '@lobehub/icons-static-svg/icons/cohere-color.svg?url';
import deepseek from '@lobehub/icons-static-svg/icons/deepseek-color.svg?url';
import groq from '@lobehub/icons-static-svg/icons/groq.svg?url';
import jina from '@lobehub/icons-static-svg/icons/jina.svg?url';
import lmstudio from '@lobehub/icons-static-svg/icons/lmstudio.svg?url';
import moonshot from '@lobehub/icons-static-svg/icons/moonshot.svg?url';
import ollama from '@lobehub/icons-static-svg/icons/ollama.svg?url';
import openai from '@lobehub/icons-static-svg/icons/openai.svg?url';
import openrouter from '@lobehub/icons-static-svg/icons/openrouter.svg?url';
import siliconflow from '@lobehub/icons-static-svg/icons/siliconcloud-color.svg?url';
import together from '@lobehub/icons-static-svg/icons/together-color.svg?url';
import vllm from '@lobehub/icons-static-svg/icons/vllm-color.svg?url';
import xai from '@lobehub/icons-static-svg/icons/xai.svg?url';
import zhipuai from '@lobehub/icons-static-svg/icons/zhipu-color.svg?url';

const BRANDS: Record<string, { url: string; mono: boolean }> = {
  openai: { url: openai, mono: true },
  deepseek: { url: deepseek, mono: false },
  ollama: { url: ollama, mono: true },
  vllm: { url: vllm, mono: false },
  lmstudio: { url: lmstudio, mono: true },
  openrouter: { url: openrouter, mono: true },
  siliconflow: { url: siliconflow, mono: false },
  moonshot: { url: moonshot, mono: true },
  groq: { url: groq, mono: true },
  together: { url: together, mono: false },
  xai: { url: xai, mono: true },
  bailian: { url: bailian, mono: false },
  zhipuai: { url: zhipuai, mono: false },
  jina: { url: jina, mono: true },
  cohere: { url: cohere, mono: false },
};

export function hasBrand(name: string): boolean {
  return name in BRANDS;
}

export function BrandIcon({ name, size = 20 }: { name: string; size?: number }) {
  const brand = BRANDS[name];
  if (!brand) return <Boxes size={size} aria-hidden />;
  if (!brand.mono) return <img src={brand.url} alt="" width={size} height={size} />;
  return (
    <span
      aria-hidden
      style={{
        display: 'inline-block',
        width: size,
        height: size,
        backgroundColor: 'currentColor',
        mask: `url("${brand.url}") center / contain no-repeat`,
        WebkitMask: `url("${brand.url}") center / contain no-repeat`,
      }}
    />
  );
}

export function RequesterIcon({ name, size = 20 }: { name: string; size?: number }) {
  const Icon = name.includes('rerank') ? ListOrdered : MessagesSquare;
  return (
    <ThemeIcon variant="light" size={size + 12} radius="md">
      <Icon size={size} aria-hidden />
    </ThemeIcon>
  );
}

/** The preset a provider's base URL came from, if any (for its icon). */
export function presetOf(baseUrl: string, presets: { name: string; base_url: string }[]): string | null {
  const host = (url: string) => {
    try {
      return new URL(url).host;
    } catch {
      return url;
    }
  };
  const match = presets.find((p) => host(p.base_url) === host(baseUrl));
  return match?.name ?? null;
}
