import type { StaffRole } from '../oauth/users.service.js';
import { adminOnly, staffOnly } from './back-office.errors.js';

/*
 * Who may do what in the back office, in one place: every service method of the back office
 * takes the acting person and asks here first, so a page that forgot its check still refuses.
 */

/** Whoever is acting: a signed-in person as the store has them now (a customer's role is null). */
export interface Actor {
  id: number;
  username: string;
  role: StaffRole | null;
}

/** A member of the staff: an actor whose role was checked. */
export interface Staff extends Actor {
  role: StaffRole;
}

/** How much each role may do: an admin may do all an editor may. */
const RANK: Readonly<Record<StaffRole, number>> = { editor: 1, admin: 2 };

/** Whether a role reaches the minimum (a customer, null, reaches none). */
export function mayAct(role: StaffRole | null, minimum: StaffRole): boolean {
  return role !== null && RANK[role] >= RANK[minimum];
}

/** The actor as staff of at least `minimum`; refuses a customer (StaffOnly) and an editor where an admin is needed (AdminOnly). */
export function requireRole(actor: Actor, minimum: StaffRole): Staff {
  if (actor.role === null) throw staffOnly();
  if (!mayAct(actor.role, minimum)) throw adminOnly();
  return actor as Staff;
}
