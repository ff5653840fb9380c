// Mantine's NumberInput (with react-number-format, ~9 KB gzipped) as a chunk of its own; see NumberField.
import { NumberInput, type NumberInputProps } from '@mantine/core';

export default function NumberInputImpl(props: NumberInputProps) {
  return <NumberInput {...props} />;
}
