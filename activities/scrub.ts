/** The scrubbing rules live in common/ (the client bounds codec messages with them too). */
export * from '../common/scrub.js';
