// Mantine's NumberInput, loaded on first use: until its chunk is there the field shows as a
// read-only text input with the same label, value and error, so a form renders at once. The
// chunk is requested as soon as a page that has such a field is loaded (alongside its data),
// so the form usually gets the real input straight away.
import { type NumberInputProps, TextInput } from '@mantine/core';
import { lazy, Suspense } from 'react';

const loading = import('./NumberInputImpl');
const NumberInput = lazy(() => loading);

export function NumberField(props: NumberInputProps) {
  const { label, description, error, required, placeholder, value, w, maw, miw, style, id, className } = props;
  const fallback = (
    <TextInput
      label={label}
      description={description}
      error={error}
      required={required}
      placeholder={placeholder}
      value={value ?? ''}
      aria-label={props['aria-label']}
      w={w}
      maw={maw}
      miw={miw}
      style={style}
      id={id}
      className={className}
      readOnly
    />
  );
  return (
    <Suspense fallback={fallback}>
      <NumberInput {...props} />
    </Suspense>
  );
}
