/**
 * Served by the Vite plugin in admin-ui/console-routes.ts: the method and path of every `/admin/`
 * operation of the registry. Typed precisely where it is used (admin-ui/src/api.ts).
 */
declare module 'virtual:console-routes' {
  const routes: Readonly<Record<string, readonly [string, string]>>;
  export default routes;
}
