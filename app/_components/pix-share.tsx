'use client';
import { useTranslations } from 'next-intl';
import { QRCodeCanvas } from 'qrcode.react';
import { useRef, useState } from 'react';

/**
 * Passing a Pix charge on from a phone: the system share sheet (Web Share API) with the Pix Copia e
 * Cola code, or where there is none, the code copied to the clipboard; and the QR code as a PNG file.
 */
export function PixShare({ brcode, title, fileName }: { brcode: string; title: string; fileName: string }) {
  const t = useTranslations('transactions');
  const canvas = useRef<HTMLCanvasElement>(null);
  const [note, setNote] = useState<string | null>(null);

  async function share() {
    setNote(null);
    if (typeof navigator.share === 'function') {
      try {
        await navigator.share({ title, text: brcode });
        setNote(t('detail.shared'));
        return;
      } catch (e) {
        if (e instanceof DOMException && e.name === 'AbortError') return; // the person closed the sheet
      }
    }
    try {
      await navigator.clipboard.writeText(brcode);
      setNote(t('detail.linkCopied'));
    } catch {
      setNote(null);
    }
  }

  function download() {
    const c = canvas.current;
    if (!c) return;
    const a = document.createElement('a');
    a.href = c.toDataURL('image/png');
    a.download = fileName;
    document.body.appendChild(a);
    a.click();
    a.remove();
  }

  return (
    <div className="button-row">
      <button type="button" className="button small secondary" onClick={share}>{t('detail.share')}</button>
      <button type="button" className="button small secondary" onClick={download}>{t('detail.downloadQr')}</button>
      <span className="muted small" aria-live="polite">{note}</span>
      {/* a large, quiet-zoned copy of the QR code, drawn only for the download */}
      <QRCodeCanvas ref={canvas} value={brcode} size={512} marginSize={4} style={{ display: 'none' }} aria-hidden="true" />
    </div>
  );
}
