#version 450
layout(location = 0) in vec4 a0;
layout(location = 1) in vec4 a1;
layout(location = 0) noperspective out vec4 v0;
out gl_PerVertex { vec4 gl_Position; float gl_ClipDistance[2]; };
void main() { gl_Position = a0; v0 = a1; gl_ClipDistance[0] = a0.x + 0.3; gl_ClipDistance[1] = 0.5 - a0.y; }
