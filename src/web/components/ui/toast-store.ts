import { useSyncExternalStore } from 'react';

/** The toast store: module-level, no provider; <Toaster/> (toast.tsx) renders it. */

export type ToastKind = 'success' | 'error' | 'info';

export interface ToastItem {
  id: number;
  kind: ToastKind;
  title: string;
  description?: string;
  duration: number;
}

const MAX_VISIBLE = 4;
const DURATION: Record<ToastKind, number> = { success: 4000, info: 4000, error: 6500 };

let items: ToastItem[] = [];
let nextId = 1;
const listeners = new Set<() => void>();

function emit(): void {
  listeners.forEach((l) => l());
}

function add(kind: ToastKind, title: string, description?: string, options?: { duration?: number }): number {
  const id = nextId++;
  const item: ToastItem = { id, kind, title, duration: options?.duration ?? DURATION[kind] };
  if (description) item.description = description;
  // The same message twice in a row replaces the old one instead of stacking.
  items = [
    ...items.filter((t) => !(t.kind === kind && t.title === title && t.description === item.description)),
    item,
  ].slice(-MAX_VISIBLE);
  emit();
  return id;
}

export const toast = {
  success: (title: string, description?: string, options?: { duration?: number }) =>
    add('success', title, description, options),
  error: (title: string, description?: string, options?: { duration?: number }) =>
    add('error', title, description, options),
  info: (title: string, description?: string, options?: { duration?: number }) =>
    add('info', title, description, options),
  dismiss: (id?: number) => {
    items = id === undefined ? [] : items.filter((t) => t.id !== id);
    emit();
  },
};

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

const getItems = () => items;
const getNone = (): ToastItem[] => [];

export function useToasts(): ToastItem[] {
  return useSyncExternalStore(subscribe, getItems, getNone);
}

/*
 * Toaster hosts. A modal <dialog> sits in the browser's top layer and makes the rest of the page
 * inert, so toasts rendered at the root would show dimmed under its backdrop and go unannounced.
 * Every open Dialog therefore mounts its own <Toaster/>; only the newest mounted host renders.
 */
let hosts: number[] = [];
let nextHost = 1;
const hostListeners = new Set<() => void>();

function emitHosts(): void {
  hostListeners.forEach((l) => l());
}

/** A new host id (a Toaster takes one when it is created). */
export function newToastHostId(): number {
  return nextHost++;
}

/** Makes `id` the newest host; returns the function that removes it. */
export function registerToastHost(id: number): () => void {
  hosts = [...hosts.filter((h) => h !== id), id];
  emitHosts();
  return () => {
    hosts = hosts.filter((h) => h !== id);
    emitHosts();
  };
}

function subscribeHosts(listener: () => void): () => void {
  hostListeners.add(listener);
  return () => hostListeners.delete(listener);
}

const getActiveHost = () => hosts[hosts.length - 1] ?? 0;

/** The id of the host that renders toasts now (the newest); 0 when none is mounted. */
export function useActiveToastHost(): number {
  return useSyncExternalStore(subscribeHosts, getActiveHost, () => 0);
}
