// Entry of a module Worker started by spawn() (spawn.js) in a browser.
import { serve } from './worker-host.js';

const onMessage = serve((message, transfer) => self.postMessage(message, transfer));
self.onmessage = (event) => onMessage(event.data);
