// The handshake over stdio: negotiation/handshake-order run with the client launching the suite's stdio server. It is
// also the smoke test of the transport end to end (the adapter's stdio target, the server's side channel, its record
// in the HTTP record's shape, the judges' wire queries).
import { handshakeOrder, NO_HTTP_BEFORE_INITIALIZE } from '../negotiation/handshake-order.ts';
import { overStdio } from './support.ts';

export const stdioHandshake = overStdio(handshakeOrder, {
  // Every line on stdin is a message: there is no stream GET or other request to come before the initialize.
  doctored: (handshakeOrder.doctored ?? []).filter((proof) => proof.check !== NO_HTTP_BEFORE_INITIALIZE),
});
