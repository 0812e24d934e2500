/** A labelled, required text input bound to one piece of state (the sign-in form, the order ticket). */
import type { HTMLAttributes } from 'react';

/**
 * The label `label` around a required `<input name={name}>` showing `value`; each edit calls `onChange` with the
 * input's text. `type` (default text), `autoComplete` and `inputMode` pass through to the input.
 */
export function TextField(props: {
  label: string;
  name: string;
  value: string;
  onChange: (value: string) => void;
  type?: 'text' | 'password';
  autoComplete?: string;
  inputMode?: HTMLAttributes<HTMLInputElement>['inputMode'];
}) {
  return (
    <label>
      {props.label}
      <input
        name={props.name}
        type={props.type}
        autoComplete={props.autoComplete}
        inputMode={props.inputMode}
        value={props.value}
        onChange={(e) => props.onChange(e.target.value)}
        required
      />
    </label>
  );
}
