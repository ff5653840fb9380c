// The drag-and-drop layer of the route editor (its own chunk): pointer or keyboard (space,
// arrows, space) reorders the cards RouteEditor renders.
import { closestCenter, DndContext, type DragEndEvent, KeyboardSensor, PointerSensor, useSensor, useSensors } from '@dnd-kit/core';
import { SortableContext, sortableKeyboardCoordinates, useSortable, verticalListSortingStrategy } from '@dnd-kit/sortable';
import { CSS } from '@dnd-kit/utilities';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

import type { DragProps, SortableProps } from './RouteEditor';
import type { DraftRoute } from './routes';

export default function SortableRoutes({ routes, moveTo, disabled, list, card }: SortableProps) {
  const { t } = useTranslation();
  const sensors = useSensors(useSensor(PointerSensor, { activationConstraint: { distance: 4 } }), useSensor(KeyboardSensor, { coordinateGetter: sortableKeyboardCoordinates }));
  const at = (id: string | number) => routes.findIndex((r) => r.key === id);
  const onDragEnd = ({ active, over }: DragEndEvent) => {
    if (!over || active.id === over.id) return;
    moveTo(at(active.id), at(over.id));
  };
  return (
    <DndContext
      sensors={sensors}
      collisionDetection={closestCenter}
      onDragEnd={onDragEnd}
      accessibility={{
        screenReaderInstructions: { draggable: t('routes.dragHelp') },
        announcements: {
          onDragStart: ({ active }) => t('routes.dragStart', { n: at(active.id) + 1 }),
          onDragOver: ({ over }) => (over ? t('routes.dragOver', { n: at(over.id) + 1 }) : ''),
          onDragEnd: ({ over }) => (over ? t('routes.dragEnd', { n: at(over.id) + 1 }) : ''),
          onDragCancel: () => t('routes.dragCancel'),
        },
      }}
    >
      <SortableContext items={routes.map((r) => r.key)} strategy={verticalListSortingStrategy}>
        {list((route, i) => (
          <Sortable key={route.key} route={route} disabled={disabled}>
            {(drag) => card(route, i, drag)}
          </Sortable>
        ))}
      </SortableContext>
    </DndContext>
  );
}

function Sortable({ route, disabled, children }: { route: DraftRoute; disabled: boolean; children: (drag: DragProps) => ReactNode }) {
  const { attributes, listeners, setNodeRef, setActivatorNodeRef, transform, transition, isDragging } = useSortable({ id: route.key, disabled });
  return children({
    setNodeRef,
    setActivatorNodeRef,
    handle: { ...attributes, ...listeners },
    style: { transform: CSS.Transform.toString(transform), transition, opacity: isDragging ? 0.6 : 1 },
  });
}
