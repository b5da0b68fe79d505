import type { Browser, BrowserContext, Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatDateTime } from '../../app/_lib/dates';
import { englishLeft, launchChromium, see, shot, signIn, WAIT } from '../support/browser';
import { removeDir, startServer, type RunningServer } from '../support/server';
import { startReceiver, type Receiver } from '../support/webhook-receiver';

/**
 * Operating a webhook from the dashboard (docs/api.md "Webhooks"), in Chromium, in Portuguese: the Webhooks
 * page operates an endpoint (test event, attempts with the receiver's status and first 1 KiB of its answer,
 * payload, failed-only filter, resend feedback, edit, pause/resume, reveal and rotate behind the password,
 * a wrong password refused and counted like a failed sign-in). The receiver is a 127.0.0.1 server this file
 * starts. Screenshots at 1280 and 390 px go to test/artifacts/webhooks-*.png.
 */
let srv: RunningServer;
let browser: Browser;
let ctx: BrowserContext;
let page: Page;
let receiver: Receiver;
const DOWN_ANSWER = '{"error":"receiver is down for maintenance"}';

const english = (p: Page) => englishLeft(p, ['webhooks', 'status']);

beforeAll(async () => {
  receiver = await startReceiver((r) => (r.path.startsWith('/down') ? { status: 503, body: DOWN_ANSWER } : { status: 200, body: '{"received":true}' }));
  // one attempt per delivery: a refused test event is FAILED at once, so the page can show it
  srv = await startServer({ pages: true, env: { WEBHOOK_RETRY_SCHEDULE: '0' } });
  browser = await launchChromium();
  ctx = await browser.newContext({ viewport: { width: 1280, height: 860 }, locale: 'pt-BR' });
  await ctx.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: srv.url });
  page = await ctx.newPage();
  await signIn(page, srv.url, srv.demo.email, srv.demo.password);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await srv?.stop();
  if (srv) removeDir(srv.dir);
  await receiver?.close();
});

describe('operating a webhook on the Webhooks page, in Portuguese', { timeout: 90_000 }, () => {
  let secret = '';
  const endpoint = () => page.getByTestId('webhook');
  const delivery = (type: string) => page.getByTestId('delivery').filter({ has: page.locator(`[data-testid=event-type]:text-is("${type}")`) });

  it('creates an endpoint whose receiver is down: the test event shows the 503 in words, the answer and the payload', async () => {
    await page.goto(`${srv.url}/webhooks`);
    await see(page, 'text=Nenhum webhook ainda');
    expect(await english(page)).toEqual([]);
    await page.getByLabel('URL do endpoint').fill(`${receiver.url}/down`);
    await page.getByRole('button', { name: 'Adicionar webhook' }).click();
    const shown = page.getByTestId('webhook-secret').locator('code');
    await expect.poll(() => shown.textContent(), WAIT).toMatch(/^whsec_/);
    secret = (await shown.textContent())!;
    await see(page, 'text=Webhook criado.');
    await page.getByRole('button', { name: 'Pronto, ocultar' }).click();
    // the list shows the secret masked and the categories in words
    await expect.poll(() => endpoint().getByTestId('masked-secret').textContent(), WAIT).toBe(`whsec_…${secret.slice(-4)}`);
    expect(await endpoint().locator('.tags').textContent()).toBe('TransaçõesSaquesContestaçõesAtivo');

    await endpoint().getByRole('button', { name: 'Enviar evento de teste' }).click();
    await see(page, 'text=Evento de teste enviado');
    const test = delivery('webhook.test').first();
    await test.locator('[data-status=FAILED]').waitFor(WAIT);
    expect(await test.locator('[data-status=FAILED]').textContent()).toBe('Falhou');
    expect(await test.locator('strong').first().textContent()).toBe('Evento de teste');
    expect(await test.textContent()).toContain('1 tentativa');
    const attempt = test.getByTestId('attempt').first();
    expect(await attempt.getByTestId('status-code').textContent()).toBe('503');
    expect(await attempt.getByTestId('attempt-error').textContent()).toBe('O receptor respondeu HTTP 503; só uma resposta 2xx conta como entregue.');
    expect(await attempt.getByTestId('answer').textContent()).toBe(DOWN_ANSWER);
    await test.getByText('Conteúdo enviado (payload)').click();
    const payload = JSON.parse((await test.getByTestId('payload').textContent())!);
    expect(payload).toMatchObject({ type: 'webhook.test', data: { url: `${receiver.url}/down` } });
    // the receiver got exactly that, signed with the secret shown at creation
    const got = receiver.received.find((r) => r.headers['webhook-id'] === payload.id)!;
    expect(JSON.parse(got.body)).toEqual(payload);
    new Webhook(secret).verify(got.body, got.headers);
    expect(await english(page)).toEqual([]);
    await shot(page, 'webhooks-failed-desktop');
  });

  it('shows only the first 1 KiB of a long answer', async () => {
    receiver.setAnswer(() => ({ status: 500, body: 'é'.repeat(700) + 'FIM' })); // 1,403 bytes
    await endpoint().getByRole('button', { name: 'Enviar evento de teste' }).click();
    const attempts = page.getByTestId('attempt');
    await expect.poll(() => attempts.count(), WAIT).toBe(2);
    const newest = page.getByTestId('delivery').first();
    await newest.locator('[data-status=FAILED]').waitFor(WAIT);
    const answer = (await newest.getByTestId('answer').textContent())!;
    expect(Buffer.byteLength(answer)).toBe(1024);
    expect(answer).toBe('é'.repeat(512));
    receiver.setAnswer((r) => (r.path.startsWith('/down') ? { status: 503, body: DOWN_ANSWER } : { status: 200, body: '{"received":true}' }));
  });

  it('edits the URL (a bad one refused next to the field), and the failed filter leaves out a delivered test', async () => {
    await endpoint().getByRole('button', { name: 'Editar' }).click();
    const form = page.getByRole('form', { name: `Editar ${receiver.url}/down` });
    await form.getByLabel('URL do endpoint').fill('isto não é uma url');
    await form.getByRole('button', { name: 'Salvar alterações' }).click();
    await see(page, 'form .field-error');
    expect(await form.locator('.field-error').first().textContent()).toBe('URL inválida: use um endereço completo, como https://seusite.com.br/webhooks');
    expect(await english(page)).toEqual([]);
    await form.getByLabel('URL do endpoint').fill(`${receiver.url}/up`);
    await form.getByRole('button', { name: 'Salvar alterações' }).click();
    await see(page, 'text=Endpoint atualizado.');
    await see(page, `[data-testid=webhook] .webhook-url >> text=${receiver.url}/up`);

    await endpoint().getByRole('button', { name: 'Enviar evento de teste' }).click();
    await page.locator('[data-testid=delivery] [data-status=DELIVERED]').first().waitFor(WAIT);
    expect(await page.getByTestId('delivery').count()).toBe(3);
    await page.getByLabel('Só entregas com falha').check();
    await expect.poll(() => page.getByTestId('delivery').count(), WAIT).toBe(2);
    expect(await page.locator('[data-testid=delivery] [data-status=DELIVERED]').count()).toBe(0);
  });

  it('resends a failed delivery with feedback; delivered, it leaves the failed filter', async () => {
    const failed = page.getByTestId('delivery').last(); // the first test event, sent to /down
    await failed.getByText('Conteúdo enviado (payload)').click();
    const id = JSON.parse((await failed.getByTestId('payload').textContent())!).id as string;
    const before = receiver.byId(id).length;
    await failed.getByRole('button', { name: 'Reenviar' }).click();
    await see(page, '[data-testid=resend-feedback]');
    expect(await page.getByTestId('resend-feedback').textContent()).toMatch(/^Reenvio na fila/);
    await shot(page, 'webhooks-resent-desktop');
    // the new attempt went to the new URL with the same webhook-id, and was accepted
    await expect.poll(() => receiver.byId(id).length, WAIT).toBe(before + 1);
    expect(receiver.byId(id).at(-1)!.path).toBe('/up');
    await expect.poll(() => page.getByTestId('delivery').count(), WAIT).toBe(1);
    await page.getByLabel('Só entregas com falha').uncheck();
    const all = page.getByTestId('delivery');
    await expect.poll(() => all.count(), WAIT).toBe(3);
    const first = all.last();
    await first.locator('[data-status=DELIVERED]').waitFor(WAIT);
    expect(await first.locator('[data-status=DELIVERED]').textContent()).toBe('Entregue');
    expect(await first.getByTestId('attempt').count()).toBe(2);
    expect(await first.getByTestId('attempt').nth(1).getByTestId('answer').textContent()).toBe('{"received":true}');
    expect(await english(page)).toEqual([]);
  });

  it('pauses (no test while paused) and resumes', async () => {
    await endpoint().getByRole('button', { name: 'Pausar' }).click();
    await endpoint().locator('[data-status=PAUSED]').waitFor(WAIT);
    expect(await endpoint().locator('[data-status=PAUSED]').textContent()).toBe('Pausado');
    await see(page, 'text=Pausado: nada é enviado a este endpoint.');
    expect(await endpoint().getByRole('button', { name: 'Enviar evento de teste' }).isDisabled()).toBe(true);
    expect(await english(page)).toEqual([]);
    await shot(page, 'webhooks-paused-desktop');
    await endpoint().getByRole('button', { name: 'Retomar' }).click();
    await endpoint().locator('[data-status=ACTIVE]').waitFor(WAIT);
    await see(page, 'text=Retomado');
    expect(await endpoint().getByRole('button', { name: 'Enviar evento de teste' }).isEnabled()).toBe(true);
  });

  it('reveals the secret with the password, rotates it and shows until when the old one is accepted (24 h)', async () => {
    await endpoint().getByRole('button', { name: 'Ver segredo' }).click();
    const dialog = page.getByRole('dialog', { name: 'Ver o segredo de assinatura' });
    await dialog.waitFor(WAIT);
    await dialog.getByLabel('Sua senha').fill(srv.demo.password);
    await dialog.getByRole('button', { name: 'Ver segredo' }).click();
    await expect.poll(() => dialog.getByTestId('revealed-secret').locator('code').textContent(), WAIT).toBe(secret);
    expect(await english(page)).toEqual([]);
    await shot(page, 'webhooks-revealed-desktop');
    await dialog.getByRole('button', { name: 'Pronto, ocultar' }).click();
    await dialog.waitFor({ state: 'hidden', ...WAIT });
    expect(await page.content()).not.toContain(secret);

    await endpoint().getByRole('button', { name: 'Trocar segredo' }).click();
    const rotate = page.getByRole('dialog', { name: 'Trocar o segredo de assinatura' });
    await rotate.getByLabel('Sua senha').fill(srv.demo.password);
    const before = Date.now();
    await rotate.getByRole('button', { name: 'Trocar segredo' }).click();
    const fresh = rotate.getByTestId('revealed-secret').locator('code');
    await expect.poll(() => fresh.textContent(), WAIT).toMatch(/^whsec_/);
    const after = Date.now();
    const newSecret = (await fresh.textContent())!;
    expect(newSecret).not.toBe(secret);
    await see(page, 'dialog >> text=Durante 24 horas');
    await rotate.getByRole('button', { name: 'Pronto, ocultar' }).click();
    // the merchant sees until when the previous secret is still accepted: 24 h after the rotation
    const until = (await endpoint().getByTestId('previous-secret').textContent())!;
    const candidates = new Set<string>();
    for (let t = Math.floor(before / 1000) * 1000; t <= after + 1000; t += 1000) candidates.add(formatDateTime(new Date(t + 86_400_000).toISOString()));
    expect([...candidates].some((c) => until === `Segredo anterior ainda aceito até ${c} (24 horas após a troca).`), until).toBe(true);
    expect(await endpoint().getByTestId('masked-secret').textContent()).toBe(`whsec_…${newSecret.slice(-4)}`);

    const sent = receiver.received.length;
    await endpoint().getByRole('button', { name: 'Enviar evento de teste' }).click();
    await expect.poll(() => receiver.received.length, WAIT).toBe(sent + 1);
    const got = receiver.received.at(-1)!;
    expect(got.headers['webhook-signature'].split(' ')).toHaveLength(2);
    new Webhook(newSecret).verify(got.body, got.headers);
    new Webhook(secret).verify(got.body, got.headers);
    await shot(page, 'webhooks-rotated-desktop');
  });

  it('fits a phone: deliveries, attempts and the secret dialog at 390 px', async () => {
    const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, locale: 'pt-BR', storageState: await ctx.storageState() });
    const p = await phone.newPage();
    await p.goto(`${srv.url}/webhooks`);
    await p.getByTestId('webhook').getByRole('button', { name: 'Entregas' }).click();
    await p.getByTestId('attempt').first().waitFor(WAIT);
    const overflow = await p.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    expect(await englishLeft(p, ['webhooks', 'status'])).toEqual([]);
    await shot(p, 'webhooks-390');
    await p.getByTestId('webhook').getByRole('button', { name: 'Trocar segredo' }).click();
    await p.getByRole('dialog', { name: 'Trocar o segredo de assinatura' }).waitFor(WAIT);
    await shot(p, 'webhooks-rotate-dialog-390');
    await phone.close();
  });

  // last: a wrong password counts as a failed sign-in of this e-mail and address, which slows the next ones
  it('refuses a wrong password, shows nothing, and counts it like a failed sign-in', async () => {
    await page.goto(`${srv.url}/webhooks`);
    await endpoint().getByRole('button', { name: 'Ver segredo' }).click();
    const dialog = page.getByRole('dialog', { name: 'Ver o segredo de assinatura' });
    await dialog.getByLabel('Sua senha').fill('nao-e-minha-senha');
    await dialog.getByRole('button', { name: 'Ver segredo' }).click();
    await see(page, 'dialog >> text=Senha incorreta; nada foi mostrado.');
    expect(await page.content()).not.toMatch(/whsec_[A-Za-z0-9+/=]{20,}/);
    await shot(page, 'webhooks-wrong-password-desktop');
    // each miss pushes this e-mail's next password check further out, like sign-in's: trying again at
    // once is answered "too many attempts" (the sign-in limiter's 429) before the password is looked at
    const message = dialog.getByTestId('form-error');
    await expect.poll(async () => {
      await dialog.getByRole('button', { name: 'Ver segredo' }).click({ timeout: 2_000 }).catch(() => {});
      return message.textContent();
    }, WAIT).toMatch(/^Muitas tentativas; tente de novo em \d+ s\.$/);
    expect(await page.content()).not.toMatch(/whsec_[A-Za-z0-9+/=]{20,}/);
  });
});
