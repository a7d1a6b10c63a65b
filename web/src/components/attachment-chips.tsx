import { bytes } from '../format';
import { Icon } from './icons';
import type { PendingFile, PendingImage } from './use-attachments';

/** The files waiting to go with the message, each with a Remove button (nothing when there are none). */
export function AttachmentChips({
  images,
  files,
  onRemoveImage,
  onRemoveFile,
}: {
  images: PendingImage[];
  files: PendingFile[];
  onRemoveImage: (id: number) => void;
  onRemoveFile: (id: number) => void;
}) {
  if (!images.length && !files.length) return null;
  return (
    <ul class="chips" aria-label="Attachments to send">
      {images.map((image) => (
        <li key={image.id} class="chip chip-image">
          <img src={`data:${image.mediaType};base64,${image.data}`} alt="" />
          <span class="chip-name">{image.name}</span>
          <button
            type="button"
            class="icon-btn"
            aria-label={`Remove ${image.name}`}
            onClick={() => onRemoveImage(image.id)}
          >
            <Icon name="close" size={14} />
          </button>
        </li>
      ))}
      {files.map((file) => (
        <li key={file.id} class={`chip chip-${file.state}`} title={file.error ?? file.path ?? ''}>
          <Icon name="file" size={14} />
          <span class="chip-name">
            {file.name}
            <span class="muted">
              {' '}
              {file.state === 'uploading'
                ? 'uploading…'
                : file.state === 'failed'
                  ? 'failed'
                  : bytes(file.size)}
            </span>
          </span>
          <button
            type="button"
            class="icon-btn"
            aria-label={`Remove ${file.name}`}
            onClick={() => onRemoveFile(file.id)}
          >
            <Icon name="close" size={14} />
          </button>
        </li>
      ))}
    </ul>
  );
}
