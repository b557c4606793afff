// Entry of a Node worker_thread started by spawn() (spawn.js).
import { parentPort } from 'node:worker_threads';
import { serve } from './worker-host.js';

const onMessage = serve((message, transfer) => parentPort.postMessage(message, transfer));
parentPort.on('message', onMessage);
