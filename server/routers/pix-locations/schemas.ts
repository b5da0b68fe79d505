import { z } from 'zod';
import { PayloadLocation, PayloadLocationCompleta, PayloadLocationConsulta, PayloadLocationConsultadas, PayloadLocationSolicitada } from '../../../contract/bcb';

export const createLocationInput = PayloadLocationSolicitada;
/** The yaml types the path's id as a string; one that is not ours is not found (the domain says so). */
export const locationIdInput = z.object({ id: z.string().max(200) });
export const locationConsultaInput = PayloadLocationConsulta;

export const payloadLocation = PayloadLocation satisfies z.ZodType<PayloadLocation>;
export const payloadLocationCompleta = PayloadLocationCompleta satisfies z.ZodType<PayloadLocationCompleta>;
export const payloadLocationConsultadas = PayloadLocationConsultadas satisfies z.ZodType<PayloadLocationConsultadas>;
