import type { modals } from '@mantine/modals';

// The confirm dialogs' host (@mantine/modals' ModalsProvider) is its own chunk, mounted after
// the first render. `modals.openConfirmModal` reaches it by a window event, which is lost when
// the host is not listening yet (a quick click right after a page load did nothing), so every
// confirmation waits here until the host has mounted.
type ConfirmProps = Parameters<typeof modals.openConfirmModal>[0];

let markMounted: () => void = () => undefined;
const mounted = new Promise<void>((resolve) => {
  markMounted = resolve;
});

/** Called by the host once it is mounted. Its listeners are attached in its own effects, which
 *  run after its child's, so the waiting confirmations are released a task later. */
export function modalsHostMounted(): void {
  setTimeout(markMounted, 0);
}

export function openConfirm(props: ConfirmProps): void {
  void Promise.all([mounted, import('@mantine/modals')]).then(([, m]) => m.modals.openConfirmModal(props));
}
