import type { SandboxArea } from '../sandbox-context';
import { confTablesArea } from './conf-tables';
import { orgUnitsArea } from './org-units';
import { profilesArea } from './profiles';
import { lettersPrintersRemindersArea } from './letters-printers-reminders';
import { setsArea } from './sets';
import { licenseTermsArea } from './license-terms';
import { partnersArea } from './partners';
import { currenciesFiscalArea } from './currencies-fiscal';
import { fundsArea } from './funds';
import { invoicesArea } from './invoices';
import { licensesArea } from './licenses';
import { poLinesArea } from './po-lines';

/**
 * The platform areas other than jobs, in spec order (jobs is built by create-sandbox with its
 * store, which the admin routes and the webhooks share). Each file exports one `SandboxArea`;
 * a new area file is registered here.
 */
export const platformAreas: readonly SandboxArea[] = [
  confTablesArea,
  orgUnitsArea,
  profilesArea,
  lettersPrintersRemindersArea,
  setsArea,
  licenseTermsArea,
  partnersArea,
  currenciesFiscalArea,
  fundsArea,
  invoicesArea,
  licensesArea,
  poLinesArea,
];
