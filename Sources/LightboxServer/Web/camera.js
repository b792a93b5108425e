// The browser's camera (getUserMedia): a photo taken straight into the library, as a JPEG of
// the camera's full frame uploaded like any file (in the album shown, when one is).
import { upload } from './upload.js';

const dialog = document.getElementById('camera');
const video = dialog.querySelector('video');
const message = document.getElementById('camera-message');
let stream = null;

function stop() {
  if (stream) stream.getTracks().forEach(track => track.stop());
  stream = null;
  video.srcObject = null;
}

async function start() {
  message.textContent = '';
  dialog.showModal();
  if (!navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) {
    message.textContent = 'This browser gives no camera here (a camera needs HTTPS, or this computer itself).';
    return;
  }
  try {
    stream = await navigator.mediaDevices.getUserMedia({
      video: { facingMode: 'environment', width: { ideal: 4096 }, height: { ideal: 3072 } }, audio: false });
    video.srcObject = stream;
    await video.play();
  } catch (error) {
    message.textContent = 'No camera: ' + (error.message || error.name);
  }
}

function stamp(date) {
  const two = n => String(n).padStart(2, '0');
  return date.getFullYear() + two(date.getMonth() + 1) + two(date.getDate()) + '_' + two(date.getHours()) +
    two(date.getMinutes()) + two(date.getSeconds());
}

async function take() {
  if (!video.videoWidth) return;
  const canvas = document.createElement('canvas');
  canvas.width = video.videoWidth;
  canvas.height = video.videoHeight;
  canvas.getContext('2d').drawImage(video, 0, 0);
  const blob = await new Promise(resolve => canvas.toBlob(resolve, 'image/jpeg', 0.92));
  if (!blob) { message.textContent = 'The photo could not be made.'; return; }
  upload([new File([blob], 'Camera_' + stamp(new Date()) + '.jpg', { type: 'image/jpeg' })]);
  dialog.querySelector('.flash').animate([{ opacity: 0.8 }, { opacity: 0 }], 250);
}

document.getElementById('camera-open').addEventListener('click', start);
document.getElementById('camera-take').addEventListener('click', take);
dialog.addEventListener('close', stop);
