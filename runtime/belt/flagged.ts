/**
 * An AbortController whose state is a plain field: the belt reads it once per record, where
 * `signal.aborted` costs a brand check and a getter call each time.
 */
export class FlaggedAbortController extends AbortController {
  /** Whether {@link abort} was called (the signal aborts only through its controller). */
  aborted = false;

  override abort(reason?: unknown): void {
    this.aborted = true;
    super.abort(reason);
  }
}
