// Every domain's routes. Each domain adds its list here, one line each.
import type { RouteDefinition } from '../http/route.ts';

export function allRoutes(): RouteDefinition[] {
  return [];
}
