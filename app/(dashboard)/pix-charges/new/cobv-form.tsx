'use client';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import { useTranslations } from 'next-intl';
import { useState } from 'react';
import { PERCENT_MODES } from '@/contract/bcb/cobv';
import { documentKind } from '@/contract/pix/documents';
import { putCobvInput } from '@/server/routers/pix-charges/schemas';
import { DateField, typedToIso } from '../../../_components/date-field';
import { BackLink, ErrorState, Loading, PageHeader, SelectField, TextField } from '../../../_components/ui';
import type { FieldErrors } from '../../../_lib/api-errors';
import { ApiForm, useApiForm } from '../../../_lib/api-form';
import { formatPixKey } from '../../../_lib/documents';
import { parseBRL } from '../../../_lib/money';
import { useTRPC } from '../../../_lib/trpc';

type Component = keyof typeof PERCENT_MODES;
const MODES: Record<Component, number> = { multa: 2, juros: 8, desconto: 6, abatimento: 2 };

/** A txid the API Pix accepts (26–35 of [a-zA-Z0-9]): 32 characters from the browser's CSPRNG. */
function newTxid(): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  // 248 = 4 × 62: bytes at or above it are redrawn, so every character is equally likely
  return Array.from(bytes, (b) => { let x = b; while (x >= 248) x = crypto.getRandomValues(new Uint8Array(1))[0]; return alphabet[x % 62]; }).join('');
}

/** "1.234,56" (reais) → "1234.56", the API Pix's amount; null when unreadable. */
function reaisToValor(text: string): string | null {
  const cents = parseBRL(text);
  return cents === null ? null : `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
}

/** "2,5" (percent) → "2.50"; null when unreadable. */
function percentToValor(text: string): string | null {
  const m = /^(\d{1,3})(?:,(\d{1,2}))?$/.exec(text.trim().replace(/\s*%$/, ''));
  return m ? `${Number(m[1])}.${(m[2] ?? '').padEnd(2, '0')}` : null;
}

interface ComponentState { modalidade: string; valor: string; data: string }
const emptyComponent = (): ComponentState => ({ modalidade: '', valor: '', data: '' });

/** "Cobrança com vencimento": a cobv created through the same procedure as PUT /v2/cobv/{txid}. */
export function CobvForm() {
  const t = useTranslations('pixCharges');
  const tv = useTranslations('validation');
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const keys = useQuery(trpc.pixKeys.list.queryOptions());
  const [chave, setChave] = useState('');
  const [devedor, setDevedor] = useState({ nome: '', documento: '' });
  const [original, setOriginal] = useState('');
  const [vencimento, setVencimento] = useState('');
  const [validade, setValidade] = useState('30');
  const [solicitacao, setSolicitacao] = useState('');
  const [parts, setParts] = useState<Record<Component, ComponentState>>(
    { multa: emptyComponent(), juros: emptyComponent(), desconto: emptyComponent(), abatimento: emptyComponent() });
  const f = useApiForm();
  const { fields } = f;
  const create = useMutation(trpc.pixCharges.putCobv.mutationOptions({
    onSuccess: async (c) => {
      await queryClient.invalidateQueries({ queryKey: trpc.pixCharges.listCobvs.pathKey() });
      router.push(`/pix-charges/cobv/${c.txid}`);
    },
    onError: f.showApiError,
  }));

  if (keys.isPending) return <Loading />;
  if (keys.isError) return <ErrorState error={keys.error} onRetry={() => keys.refetch()} />;
  const chosenKey = chave || keys.data.data[0]?.key || '';

  function submit() {
    const unreadable: FieldErrors = {};
    const valor: Record<string, unknown> = {};
    const originalValor = original.trim() ? reaisToValor(original) : undefined;
    if (originalValor === null) unreadable['valor.original'] = t('form.amountFormat');
    valor.original = originalValor ?? undefined;
    for (const c of Object.keys(MODES) as Component[]) {
      const p = parts[c];
      if (!p.modalidade) continue;
      const modalidade = Number(p.modalidade);
      const percent = (PERCENT_MODES[c] as readonly number[]).includes(modalidade);
      const v = p.valor.trim() ? (percent ? percentToValor(p.valor) : reaisToValor(p.valor)) : undefined;
      if (v === null) unreadable[`valor.${c}.valorPerc`] = percent ? t('form.percentFormat') : t('form.amountFormat');
      if (c === 'desconto' && modalidade <= 2) {
        const data = typedToIso(p.data);
        if (data === null) unreadable['valor.desconto.descontoDataFixa.0.data'] = tv('date');
        valor.desconto = { modalidade, descontoDataFixa: [{ data: data || undefined, valorPerc: v ?? undefined }] };
      } else {
        valor[c] = { modalidade, valorPerc: v ?? undefined };
      }
    }
    const dueDate = typedToIso(vencimento);
    if (dueDate === null) unreadable['calendario.dataDeVencimento'] = tv('date');
    const doc = devedor.documento.replace(/[.\-/\s]/g, '').toUpperCase();
    const kind = doc ? documentKind(doc) : null;
    if (doc && !kind) unreadable['devedor.cpf'] = tv('document');
    const input = {
      txid: newTxid(),
      calendario: { dataDeVencimento: dueDate || undefined, validadeAposVencimento: /^\d{1,9}$/.test(validade.trim()) ? Number(validade.trim()) : validade },
      devedor: { nome: devedor.nome.trim(), ...(kind === 'CNPJ' || doc.length === 14 ? { cnpj: doc } : { cpf: doc }) },
      valor,
      chave: chosenKey,
      ...(solicitacao.trim() ? { solicitacaoPagador: solicitacao.trim() } : {}),
    };
    const valid = f.check(putCobvInput, input, { extra: unreadable });
    if (valid) create.mutate(valid);
  }

  const setPart = (c: Component, patch: Partial<ComponentState>) => setParts((all) => ({ ...all, [c]: { ...all[c], ...patch } }));
  const busy = create.isPending || create.isSuccess;
  const docError = fields['devedor.cpf'] ?? fields['devedor.cnpj'] ?? fields.devedor;
  return (
    <>
      <BackLink href="/pix-charges">{t('form.back')}</BackLink>
      <PageHeader title={t('form.title')} subtitle={t('form.subtitle')} />
      {keys.data.data.length === 0 ? <div className="alert" role="status">{t('form.noKeys')}</div> : null}
      <ApiForm form={f} onSubmit={submit} className="card form" label={t('form.title')}>
        <SelectField label={t('form.chave')} name="chave" value={chosenKey} onChange={(e) => setChave(e.target.value)} error={fields.chave}>
          {keys.data.data.map((k) => <option key={k.id} value={k.key}>{formatPixKey(k.key_type, k.key)}</option>)}
        </SelectField>
        <fieldset>
          <legend>{t('form.devedorTitle')}</legend>
          <div className="form-grid">
            <TextField label={t('form.nome')} autoComplete="off" value={devedor.nome} onChange={(e) => setDevedor({ ...devedor, nome: e.target.value })} error={fields['devedor.nome']} />
            <TextField label={t('form.documento')} autoComplete="off" placeholder="123.456.789-09" value={devedor.documento} onChange={(e) => setDevedor({ ...devedor, documento: e.target.value })} error={docError} />
          </div>
        </fieldset>
        <fieldset>
          <legend>{t('form.valorTitle')}</legend>
          <div className="form-grid">
            <TextField label={t('form.original')} inputMode="decimal" placeholder="1.234,56" value={original} onChange={(e) => setOriginal(e.target.value)} error={fields['valor.original']} />
            <DateField label={t('form.vencimento')} name="dataDeVencimento" value={vencimento} onChange={setVencimento} error={fields['calendario.dataDeVencimento']} />
            <TextField label={t('form.validade')} inputMode="numeric" value={validade} onChange={(e) => setValidade(e.target.value)} hint={t('form.validadeHint')} error={fields['calendario.validadeAposVencimento']} />
          </div>
        </fieldset>
        {(Object.keys(MODES) as Component[]).map((c) => {
          const p = parts[c];
          const modalidade = Number(p.modalidade);
          const percent = (PERCENT_MODES[c] as readonly number[]).includes(modalidade);
          const fixedDate = c === 'desconto' && (modalidade === 1 || modalidade === 2);
          const what = t(`form.${c}Title`);
          const valorError = fields[`valor.${c}.valorPerc`] ?? fields[`valor.${c}.descontoDataFixa.0.valorPerc`] ?? fields[`valor.${c}`];
          return (
            <fieldset key={c}>
              <legend>{what}</legend>
              <div className="form-grid">
                <SelectField label={t('form.modalidade')} name={`${c}-modalidade`} value={p.modalidade} onChange={(e) => setPart(c, { modalidade: e.target.value })} error={fields[`valor.${c}.modalidade`]}>
                  <option value="">{t('form.none', { what: what.toLowerCase() })}</option>
                  {Array.from({ length: MODES[c] }, (_, i) => String(i + 1)).map((m) => (
                    <option key={m} value={m}>{t(`form.${c}Mode.${m}` as 'form.multaMode.1')}</option>
                  ))}
                </SelectField>
                {p.modalidade ? (
                  <TextField label={percent ? t('form.percentual') : t('form.valorReais')} name={`${c}-valor`} inputMode="decimal" placeholder={percent ? '2,00' : '10,00'}
                    value={p.valor} onChange={(e) => setPart(c, { valor: e.target.value })} error={valorError} />
                ) : null}
                {fixedDate ? (
                  <DateField label={t('form.descontoData')} name={`${c}-data`} value={p.data} onChange={(data) => setPart(c, { data })}
                    error={fields['valor.desconto.descontoDataFixa.0.data'] ?? fields['valor.desconto.descontoDataFixa']} />
                ) : null}
              </div>
            </fieldset>
          );
        })}
        <TextField label={t('form.solicitacao')} maxLength={140} value={solicitacao} onChange={(e) => setSolicitacao(e.target.value)} hint={t('form.solicitacaoHint')} error={fields.solicitacaoPagador} />
        <div className="button-row">
          <button type="submit" className="button primary" disabled={busy || keys.data.data.length === 0}>{busy ? t('form.submitting') : t('form.submit')}</button>
        </div>
      </ApiForm>
    </>
  );
}
