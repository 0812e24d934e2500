/** The error line under a form or table: the last failed write's message, in the API's words. */

/** The last write's error, announced to screen readers; nothing when there is none. */
export function ErrorLine(props: { error: string | null }) {
  return props.error ? (
    <p className="error" role="alert">
      {props.error}
    </p>
  ) : null;
}
