// Package ardp is the client side of ARDP v0, the Asynchronous Reliable
// Delivery Protocol that carries Prospero over UDP, as the ISI release
// P53.17May94b speaks it: its behaviour on the wire was recorded from that
// server.
//
// A transaction (Send) sends one request message and reads one reply
// message. Messages are cut into packets of exactly DataLen (1,250) bytes,
// wherever the cut falls; the reply is reassembled in packet order and
// read as a stream (Reply.Read), so a large reply is never held whole:
// at most MaxWindow packets ahead of the reader are kept. Reading drives
// the protocol: cumulative ACKs (when the server asks, and whenever the
// reader has to wait), retransmission of the request or of the ACK with a
// doubling timeout, the server's wait and queue-status replies, its
// redirects (bounded), and a cancel at Close before the end.
//
// Only packets with the transaction's connection id (or the byte-swapped
// id that unpatched servers on little-endian hosts send) are taken; the
// socket is connected, so datagrams from any other address never reach
// it. Every count the server claims is checked against what can be, and
// nothing is allocated from it: a reply claiming 65,535 packets costs
// only what actually arrives. Errors are *fetch.Error.
package ardp
