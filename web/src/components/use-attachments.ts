import { useState } from 'preact/hooks';
import { uploadFile } from '../api';
import { bytes } from '../format';
import { errorText } from '../state';

/**
 * The files attached to the message being written. Images (png/jpeg/gif/webp, up to 4, 5 MB each) are
 * kept as base64 to go with the message; any other file is uploaded to the workspace at once, and once
 * done its `path` is what the message names. `problem` says why a file was refused.
 */

const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'];
const MAX_IMAGES = 4;
const MAX_IMAGE_BYTES = 5 * 1024 * 1024;

export interface PendingImage {
  id: number;
  name: string;
  mediaType: string;
  data: string;
}

export interface PendingFile {
  id: number;
  name: string;
  size: number;
  state: 'uploading' | 'done' | 'failed';
  path?: string;
  error?: string;
}

let fileSeq = 0;

function readBase64(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result).replace(/^data:[^,]*,/, ''));
    reader.onerror = () => reject(reader.error ?? new Error('Could not read the file.'));
    reader.readAsDataURL(file);
  });
}

export function useAttachments() {
  const [images, setImages] = useState<PendingImage[]>([]);
  const [files, setFiles] = useState<PendingFile[]>([]);
  const [problem, setProblem] = useState<string | null>(null);

  const upload = (file: File) => {
    const id = ++fileSeq;
    const settle = (change: Partial<PendingFile>) =>
      setFiles((current) => current.map((item) => (item.id === id ? { ...item, ...change } : item)));
    setFiles((current) => [...current, { id, name: file.name, size: file.size, state: 'uploading' }]);
    uploadFile(file).then(
      (uploaded) => settle({ state: 'done', path: uploaded.path }),
      (error) => settle({ state: 'failed', error: errorText(error) }),
    );
  };

  const add = async (list: Iterable<File>) => {
    setProblem(null);
    let imageCount = images.length;
    for (const file of [...list]) {
      if (!IMAGE_TYPES.includes(file.type)) {
        upload(file);
        continue;
      }
      if (imageCount >= MAX_IMAGES) {
        setProblem(`Up to ${MAX_IMAGES} images per message.`);
        continue;
      }
      if (file.size > MAX_IMAGE_BYTES) {
        setProblem(`${file.name} is ${bytes(file.size)}; images can be up to 5 MB.`);
        continue;
      }
      imageCount++;
      try {
        const data = await readBase64(file);
        setImages((current) => [...current, { id: ++fileSeq, name: file.name, mediaType: file.type, data }]);
      } catch (error) {
        setProblem(errorText(error));
      }
    }
  };

  return {
    images,
    files,
    problem: problem ?? files.find((file) => file.state === 'failed')?.error ?? null,
    uploading: files.some((file) => file.state === 'uploading'),
    add,
    removeImage: (id: number) => setImages((current) => current.filter((item) => item.id !== id)),
    removeFile: (id: number) => setFiles((current) => current.filter((item) => item.id !== id)),
    clear: () => {
      setImages([]);
      setFiles([]);
      setProblem(null);
    },
  };
}
