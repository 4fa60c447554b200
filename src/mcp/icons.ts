// The server's icon (SEP-973), as hosts show it beside the server and each tool: a hex nut, one
// SVG and one 64 px PNG, both data URIs so that stdio needs no file server. The PNG draws the
// SVG at 4 px a unit (the same navy, light and orange as mcpb/icon.png, on a transparent ground).
// server.json carries the SVG alone: the registry's schema caps an icon's `src` at 255
// characters, which the SVG fits (test/install/server-json.test.ts checks it is this one).
import type { Icon } from "@modelcontextprotocol/server";

export const ICON_SVG =
  "data:image/svg+xml,%3Csvg%20xmlns='http://www.w3.org/2000/svg'%20viewBox='0,0,16,16'%20fill='%23247'%3E%3Cpath%20d='M4,1h8l4,7-4,7H4L0,8'/%3E%3Ccircle%20cx='8'%20cy='8'%20r='3'%20fill='%23eef'%20stroke='%23fa2'%20stroke-width='1.5'/%3E%3C/svg%3E";

const ICON_PNG =
  "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAEAAAABAAgMAAADXB5lNAAAADFBMVEUAAAAiRHfu7v//qiJHSZvWAAAAAXRSTlMAQObYZgAAANZJREFUeNqlk80NgzAMhQlSRug+GYEDVo8dhX3MoSMwRZfg3kul4iqxQ2gfKK2aE3x6zov/mubjtL+DdMhO/ncZhKMQnxWdgVMG/VEI0cZmT+GKIuwrfFF0767Jtz1yFSnpxY9B5JmBU4FKgoFLBHcDXiM0pjNXEYvpVzCPKyCisyzMk9zUJt35YL6mW7PJzDyajQJmZgPqmoD6RpNhiWCKoG93c90oCBX1O8AWHgZPh+QwfSgQlBCKDG2ARkErsdn1+YCRqk9hfZK/2AZYoPrOwZr+u/svTyQEi8Vs0CsAAAAASUVORK5CYII=";

export const ICONS: Icon[] = [
  { src: ICON_SVG, mimeType: "image/svg+xml", sizes: ["any"] },
  { src: ICON_PNG, mimeType: "image/png", sizes: ["64x64"] },
];
