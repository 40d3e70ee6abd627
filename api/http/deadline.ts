// Every request has a server-side deadline (config.requestDeadlineMs): one that has not begun its
// answer by then answers 503 busy with Retry-After, so no client waits on us without a bound.
import type { NextFunction, Request, Response } from 'express';
import { sendOutage } from './errors.ts';

/**
 * The deadline answers; the request's work is let go by the engine's own bounds, which are all
 * shorter: a command's locks at commandDeadlineMs, its statement at the session's
 * statement_timeout, a transaction left idle at idle_in_transaction_session_timeout. Its late
 * outcome is dropped (the error handler and sendResult see the answer has begun). A streamed answer
 * (a report) that has begun is bounded by its statement's timeout instead.
 */
export function requestDeadline(deadlineMs: number, onExpired: (request: Request, response: Response) => void) {
  return (request: Request, response: Response, next: NextFunction): void => {
    const timer = setTimeout(() => {
      if (response.headersSent) return;
      onExpired(request, response);
      sendOutage(response, 'request_deadline');
    }, deadlineMs);
    const clear = () => clearTimeout(timer);
    response.once('finish', clear);
    response.once('close', clear);
    next();
  };
}
