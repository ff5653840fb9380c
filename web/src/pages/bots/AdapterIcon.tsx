import { ThemeIcon } from '@mantine/core';
import { Webhook } from 'lucide-react';

import type { Adapter } from '../../api/types';

/** The adapter's icon (an image it declares), else a generic one. */
export function AdapterIcon({ adapter, size = 36 }: { adapter: Adapter | undefined; size?: number }) {
  if (adapter?.icon) return <img src={adapter.icon} alt="" width={size} height={size} />;
  return (
    <ThemeIcon size={size} variant="light" radius="md" aria-hidden>
      <Webhook size={size * 0.55} />
    </ThemeIcon>
  );
}
