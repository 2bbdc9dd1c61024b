/* Random (version 4) UUIDs for metadata.uid. */
#ifndef MOCK_UUID_H
#define MOCK_UUID_H

#define MOCK_UUID_LEN 36

/* Write a lowercase RFC 4122 version 4 UUID and a NUL into out. Uses
 * getrandom(2); never fails (falls back to /dev/urandom, then abort). */
void mock_uuid_v4(char out[MOCK_UUID_LEN + 1]);

#endif
