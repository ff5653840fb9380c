import { ModalsProvider } from '@mantine/modals';
import { useEffect } from 'react';

import { modalsHostMounted } from '../components/confirm';

function Mounted() {
  useEffect(modalsHostMounted, []);
  return null;
}

/** The confirm dialogs' host, loaded lazily by App; tells `openConfirm` when it listens. */
export default function ModalsHost({ labels }: { labels: { confirm: string; cancel: string } }) {
  return (
    <ModalsProvider labels={labels}>
      <Mounted />
    </ModalsProvider>
  );
}
