// What the terminal is started with, and its screens.
import type { PosClient } from './api.ts';

export interface AppOptions {
  client: PosClient;
  clientId?: string;
  login?: string;
  /** The POS device: the one it signs in with, or the one named for its token; null when unknown. */
  deviceUuid: string | null;
  businessId?: string;
  processorToken?: string;
  exportDir: string;
  currency: string;
  today: () => string;
}

export type Screen = 'signin' | 'menu' | 'sale' | 'paycode' | 'proc' | 'report';
