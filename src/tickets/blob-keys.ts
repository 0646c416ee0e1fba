// The one place that spells where a ticket's blobs live. Housekeeping removes a ticket by
// deleting its input by the key its row names and then its folder, so every other key a ticket
// owns must start with ticketFolder().

/** The ticket a key belongs to (a fanout group's id stands in for the ticket of a shared ZIP). */
export interface TicketKeyOwner {
  tenant: string;
  project: string;
  id: string;
}

/** `jobs/<tenant>/<project>/<ticket>/`: every blob of the ticket, for deletion by prefix. */
export function ticketFolder(owner: TicketKeyOwner): string {
  return `jobs/${owner.tenant}/${owner.project}/${owner.id}/`;
}

/**
 * A ticket's input, when it is too large to keep inline in its row: `jobs/<tenant>/<project>/
 * <ticket>.input`, beside the ticket's folder rather than in it. Most tickets write nothing else
 * (their outputs go into their rows), so a folder for the input alone was a directory created for
 * every ticket, a file system write of its own. Its row names the key, so every deletion finds
 * it; inputs stored in the folder by earlier versions (`<ticket>/input`) are found the same way.
 */
export function inputKey(owner: TicketKeyOwner): string {
  return `jobs/${owner.tenant}/${owner.project}/${owner.id}.input`;
}

/** The ZIP a fanout's parts share (their resources), under the group's id. */
export function groupZipKey(group: TicketKeyOwner): string {
  return `${ticketFolder(group)}input.zip`;
}

/**
 * What the names of one step attempt's files start with, in the ticket's folder: each attempt
 * has its own, so a retry never writes over what an earlier attempt left. The files sit beside
 * the input rather than in a folder per attempt: creating a folder is a file system write of its
 * own for every ticket (on ext4 without a journal, as on our CI machines, it costs as much
 * kernel time as a file).
 */
export function attemptKeyPrefix(ticket: TicketKeyOwner & { attempt: number }): string {
  return `${ticketFolder(ticket)}a${ticket.attempt}.`;
}

/** The folder one attempt's files went to before {@link attemptKeyPrefix} (tickets stored by earlier versions). */
export function legacyAttemptFolder(ticket: TicketKeyOwner & { attempt: number }): string {
  return `${ticketFolder(ticket)}a${ticket.attempt}/`;
}

/** A file written by one step attempt: `<ticket folder>a<attempt>.<name>`. */
export function attemptFileKey(ticket: TicketKeyOwner & { attempt: number }, name: string): string {
  return `${attemptKeyPrefix(ticket)}${name}`;
}
